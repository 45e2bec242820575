// Package signermesh is the transport between signer processes: a static
// full mesh over gRPC in TLS 1.3, mutually authenticated by the members'
// identity keys. Every member knows every other member's id, identity
// key (from the group) and address (from its configuration); nothing is
// discovered.
//
// # Links
//
// Each pair of members keeps one link: the member with the smaller id
// dials the other (ids compare as byte strings) and redials with backoff
// whenever the link ends; the other only accepts. One link per pair, with
// no duplicates to resolve: had both sides dialled, two links could come
// up at once and each side would have to agree which to drop. The cost is
// that a link waits for its dialling side: a member with the smaller id
// that restarts brings the link back itself, one with the greater id is
// redialled within the backoff (at most ReconnectMax). A member that
// accepts a new link from a peer replaces the one it had (the peer
// restarted), and refuses a link from a member with a greater id.
//
// Send never waits for a peer: it puts the message on the peer's queue,
// bounded in messages and bytes, and a full queue drops its oldest
// message (counted as DropQueueFull). The protocol tolerates loss: its
// anti-entropy recovers what is dropped. A queue outlives the peer's
// links, so what is sent while a peer restarts leaves when it is back.
//
// # Encryption and keys
//
// Every connection is TLS 1.3 (no other version, no session
// resumption), mutually authenticated by the members' ed25519 identity
// keys: each member presents a self-signed certificate of its identity
// key, made at start, that names nothing (no subject, no host, no member
// id; a fixed serial and validity, so it depends on the key alone). No
// CA and no names are checked: the key is, against the group. The
// roles are reversed: the dialling member is TLS's server and the
// accepting member TLS's client, with no server name. In TLS 1.3 the
// server shows its certificate first (encrypted) and proves it with
// CertificateVerify and Finished, and the client shows its own only
// after that verified. So the dialler proves its key first, and the
// accepting member checks it is the key of another member of its group
// before it shows anything: a process without a member's private key
// that reaches the listen port receives a ClientHello (random bytes and
// key shares) and an alert, not even the member's public key. The
// dialler requires the certificate of exactly the member it dialled.
// What crosses in the clear is TLS's: the ClientHello, ServerHello and
// record headers (lengths and timing); certificates, hellos, group id
// and envelopes are encrypted.
//
// The dialler's certificate goes to whoever answers at the address it
// dials (an attacker who takes over that address learns the dialler's
// public identity key, which every member's group configuration lists,
// and nothing more: the group id and member ids are sent only after the
// peer proved the expected key).
//
// TLS failures on the accepting side before the dialler proved a key
// are counted by reason (Metrics.Refused: tls_unknown_key,
// tls_bad_certificate, tls_key_not_proven, tls_timeout, tls_failed),
// never against a member. On the dialling side they count against the
// member dialled (Metrics.Handshake: bad_proof for a key no member has,
// unexpected_peer for another member's key, refused_by_peer for the
// peer's alert, failed). An accepting member whose certificate the
// dialler refused counts refused_by_peer against the dialler, which
// proved its key first.
//
// # Wire
//
// Inside TLS, the gRPC service bridgelog.signermesh.v1.Mesh has one bidirectional
// streaming method, Link, declared by hand (no protoc: the messages are
// opaque). A message is a frame: one kind byte, then its body. Frames are
// carried by a codec of their own instead of protobuf, because the
// envelopes are already a signed, versioned binary encoding
// (twophase.Seal); the codec is set on this mesh's server and calls, not
// registered globally, so it cannot displace the "proto" codec that
// kaspad's client in the same process uses.
//
//	1 hello    version (u16 BE) | group id (32) | id length (u8) | id | nonce (32)
//	2 proof    ed25519 signature (64) of the transcript
//	3 accept   (empty)
//	4 refuse   reason (UTF-8, at most 512 bytes)
//	5 envelope a sealed twophase envelope, opaque to the mesh
//	6 fragment a part of an envelope too long for one frame
//
// A frame is at most WireFrameBytes (64 KiB by default); both sides set it
// as gRPC's message limits, because gRPC's limit is one for the whole
// server and has to hold before anyone proved a key. An envelope longer
// than a frame goes as fragments, then an envelope frame with its tail;
// the receiver gathers them, up to MaxMessageBytes
// (twophase.MaxEnvelopeBytes plus the kind byte), on an authenticated
// link only: a fragment during the handshake is a malformed frame.
//
// # Before authentication
//
// What an outsider can make a member hold is bounded before any proof:
// the listener keeps at most MaxConnections (4N+8) connections, and when
// full closes the oldest one that has not authenticated to admit the new
// one; one remote IP has at most MaxPendingPerIP (4) connections not yet
// authenticated; these limits hold before and during TLS, so an
// outsider's TLS handshakes count in them. A connection that carries no
// authenticated link HandshakeTimeout after it was accepted is closed (a
// TLS handshake not finished, an HTTP/2 connection without a stream, a
// stream that never says hello), and TLS itself must finish within
// HandshakeTimeout. gRPC allows one stream per connection (a dialler keeps one
// link per connection), frames of WireFrameBytes, fixed flow-control
// windows of WindowBytes (no growth), 8 KiB of headers and no compressed
// stream (refused before its first message is read, whatever
// decompressors the process registered). Each refusal is counted by
// reason (Metrics.Refused) and logged at most once per
// RefusalLogInterval per reason, with a count.
//
// # Handshake
//
// Inside TLS, which proved both keys, an application handshake binds
// the TLS session to the protocol version, the group and both member
// ids, and names what differs between two members' configurations:
//
//	dialler  → hello (version, group id, its id, nonce D)
//	acceptor   checks the hello names the member whose key TLS proved
//	acceptor → challenge (nonce A: 32 random bytes, nothing else)
//	dialler  → proof: its signature of the transcript, prover itself,
//	           verifier the member it dialled with nonce A
//	acceptor   verifies it against the key its group lists for the id
//	           named, over the version and group that hello claims
//	acceptor → hello (nonce A), proof (verifier: the dialler's hello)
//	           then checks the dialler's hello (see below)
//	dialler    verifies that proof against the key of the member
//	           dialled, then checks the acceptor's hello
//	both     → accept, and the link is up once each has the other's
//
// The hello checks: the same protocol version, the same group id (a hash
// of the version, profile, network, quorum, Profile B's f, change script
// and every member's id and keys: any difference in configuration shows
// here; when only the profile, quorum or f differs, the refusal names
// them, since a group runs one profile), an id that is a member of the
// group, is not their own, is the member dialled (on the dialling side)
// and is smaller than their own (on the accepting side). Because the
// proofs are checked over what each hello claims, two members that
// differ in version or group still prove who they are and each is told,
// and logs, what differs. The transcript signed is
//
//	"bridgelog/signermesh/handshake/v2" 0x00
//	| protocol version (u16 BE) | group id (32)
//	| prover id (u8 length, bytes) | verifier id (u8 length, bytes)
//	| prover's nonce (32) | verifier's nonce (32)
//	| TLS exporter value (32, label
//	  "EXPORTER-bridgelog-signermesh-handshake-v2", no context)
//
// The verifier's nonce and the TLS session's exporter value make a proof
// good for one link only (a proof relayed onto another TLS session does
// not verify); the ids in order keep a proof from being reflected or
// relayed to another member; the tag keeps a handshake signature from
// ever being an envelope signature (twophase signs envelopes under
// "bridgelog/twophase/envelope/v1"). A side that refuses sends a refuse
// frame with its reason and ends the link.
//
// Blame: the peer of a link proved its key in TLS, so a refusal in the
// application handshake is counted against it (Metrics.Handshake with
// its id, its last error in Peers), and it is told why; a hello naming
// another member than the key TLS proved is refused as
// unexpected_peer, counted against the member whose key it holds, not
// the one it named. No envelope is read on a link before it is up; the
// envelopes that follow are attributed to the authenticated peer
// ([PeerFromContext]) and verified one by one by the protocol anyway.
//
// # Across hosts
//
// The links are encrypted and authenticated by TLS: a network between
// the signers' hosts need not be trusted to keep the messages secret.
// A party on the path can still see that two hosts talk, how much and
// when, and can drop, delay or cut the traffic; the protocol's
// anti-entropy recovers what is lost. WireGuard or IPsec is optional
// (it would hide the TLS ClientHello and the record sizes too); keep
// the listen port open to the peers' addresses only, which bounds who
// can spend the limits above.
package signermesh
