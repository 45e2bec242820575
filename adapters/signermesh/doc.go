// Package signermesh is the transport between signer processes: a static
// full mesh over gRPC. Every member knows every other member's id,
// identity key (from the group) and address (from its configuration);
// nothing is discovered.
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
// # Wire
//
// The gRPC service bridgelog.signermesh.v1.Mesh has one bidirectional
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
// authenticated; a connection that carries no authenticated link
// HandshakeTimeout after it was accepted is closed (a silent TCP
// connection, an HTTP/2 connection without a stream, a stream that never
// says hello). gRPC allows one stream per connection (a dialler keeps one
// link per connection), frames of WireFrameBytes, fixed flow-control
// windows of WindowBytes (no growth), 8 KiB of headers and no compressed
// stream (refused before its first message is read, whatever
// decompressors the process registered). Each refusal is counted by
// reason (Metrics.Refused) and logged at most once per
// RefusalLogInterval per reason, with a count.
//
// # Handshake
//
// The dialling side proves its key first; the accepting side tells
// nothing about itself (group, member id) to a connection before that
// proof verified:
//
//	dialler  → hello (version, group id, its id, nonce D)
//	acceptor → challenge (nonce A: 32 random bytes, nothing else)
//	dialler  → proof: its signature of the transcript, prover itself,
//	           verifier the member it dialled with nonce A
//	acceptor   verifies it against the key its group lists for the id
//	           named, over the version and group that hello claims;
//	           on failure it refuses with a fixed text that says nothing
//	           of the group, and blames no member
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
//	"bridgelog/signermesh/handshake/v1" 0x00
//	| protocol version (u16 BE) | group id (32)
//	| prover id (u8 length, bytes) | verifier id (u8 length, bytes)
//	| prover's nonce (32) | verifier's nonce (32)
//
// The verifier's nonce makes a proof good for one link only; the ids in
// order keep a proof from being reflected or relayed to another member;
// the tag keeps a handshake signature from ever being an envelope
// signature (twophase signs envelopes under
// "bridgelog/twophase/envelope/v1"). A side that refuses sends a refuse
// frame with its reason and ends the link.
//
// Blame: a refusal is counted against a member (Metrics.Handshake with
// its id, its last error in Peers) only on the dialling side, for the
// member it dialled, or on the accepting side once the dialler proved
// that member's key. Anything before (a malformed or out-of-order frame,
// an unknown id, a bad proof, a timeout) is counted by reason only
// (Metrics.Refused) and logged at most once per RefusalLogInterval per
// reason with a count: a hello naming s1 with a made-up proof is not
// s1's failure. No envelope is read on a link before it is up; the
// envelopes that follow are attributed to the authenticated peer
// ([PeerFromContext]) and verified one by one by the protocol anyway.
//
// # Across hosts
//
// The mesh speaks plaintext gRPC. On loopback that is enough. Between
// hosts the handshake authenticates each link when it opens, and every
// envelope is signed, so a party on the path cannot forge messages; it
// can still read them, drop them, or hold a link open and feed it
// garbage. Run the mesh inside an encrypted, authenticated network
// between the signers' hosts (WireGuard or IPsec between exactly those
// hosts), with the listen port open to the peers' addresses only.
package signermesh
