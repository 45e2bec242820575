package signermesh

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/credentials"

	"github.com/bridgelog/bridgelog/adapters/simledger"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// rawCredentials dial as the holder of key, as a member's dialling side
// does (TLS's server role, its certificate, the peer's required), and
// accept whatever key the peer shows: a test client without a mesh.
type rawCredentials struct {
	key ed25519.PrivateKey
}

func (c rawCredentials) ClientHandshake(ctx context.Context, _ string, raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn, err := rawTLS(ctx, raw, c.key)
	if err != nil {
		raw.Close()
		return nil, nil, err
	}
	auth, err := newLinkAuth(conn, "")
	return conn, auth, err
}

func (rawCredentials) ServerHandshake(net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return nil, nil, errors.New("a test client does not accept")
}
func (rawCredentials) Info() credentials.ProtocolInfo {
	return credentials.ProtocolInfo{SecurityProtocol: "tls"}
}
func (c rawCredentials) Clone() credentials.TransportCredentials { return c }
func (rawCredentials) OverrideServerName(string) error           { return nil }

// rawTLS runs the dialling side's TLS on raw with key's certificate.
func rawTLS(ctx context.Context, raw net.Conn, key ed25519.PrivateKey) (*tls.Conn, error) {
	cert, err := memberCertificate(key)
	if err != nil {
		return nil, err
	}
	return rawTLSWith(ctx, raw, cert)
}

func rawTLSWith(ctx context.Context, raw net.Conn, cert tls.Certificate) (*tls.Conn, error) {
	conn := tls.Server(raw, &tls.Config{MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{cert},
		ClientAuth: tls.RequireAnyClientCert, SessionTicketsDisabled: true})
	return conn, conn.HandshakeContext(ctx)
}

// recordingProxy forwards connections to target and keeps every byte
// each way: what a passive observer of the path sees.
type recordingProxy struct {
	ln     net.Listener
	target string

	mu       sync.Mutex
	captured bytes.Buffer // both directions, each connection's chunks as they came
	conns    int
}

func startRecordingProxy(t *testing.T, target string) *recordingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &recordingProxy{ln: ln, target: target}
	var wg sync.WaitGroup
	var open []net.Conn
	var openMu sync.Mutex
	t.Cleanup(func() {
		ln.Close()
		openMu.Lock()
		for _, c := range open {
			c.Close()
		}
		openMu.Unlock()
		wg.Wait()
	})
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			openMu.Lock()
			open = append(open, in, out)
			openMu.Unlock()
			p.mu.Lock()
			p.conns++
			p.mu.Unlock()
			wg.Add(2)
			go p.pipe(&wg, out, in)
			go p.pipe(&wg, in, out)
		}
	}()
	return p
}

func (p *recordingProxy) pipe(wg *sync.WaitGroup, dst, src net.Conn) {
	defer wg.Done()
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			p.captured.Write(buf[:n])
			p.mu.Unlock()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// bytes is a copy of what was captured so far, and how many connections
// carried it. Each direction's chunks
// land whole, so a secret in one chunk is found; one split across two
// reads would be missed, which the chunks' size (32 KiB reads of TLS
// records) makes rare, and every secret is sent many times.
func (p *recordingProxy) bytes() ([]byte, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return bytes.Clone(p.captured.Bytes()), p.conns
}

// A passive observer of the bytes between two members, both ways, while
// they exchange signed proposals, no-votes and commits in both
// directions, sees none of: the group id, a member id, an identity key,
// a destination address or an amount, in any encoding in which they
// appear in the envelopes or the handshake.
func TestPassiveObserverSeesNothing(t *testing.T) {
	ids := []twophase.PeerID{"member-alpha", "member-bravo"}
	c := newCluster(t, ids...)
	a, b := ids[0], ids[1]
	bCfg := c.config(b)
	mb := c.start(bCfg)
	proxy := startRecordingProxy(t, c.addrs[b])
	aCfg := c.config(a)
	aCfg.Peers[b] = proxy.ln.Addr().String() // alpha dials bravo through the proxy
	ma := c.start(aCfg)
	inA, inB := &inbox{}, &inbox{}
	ma.Attach(inA.receiver())
	mb.Attach(inB.receiver())

	group := c.g.Group.ID()
	destinations := []string{"kaspa:qzobserverdestinationalpha0000000000000000000000000000", "kaspasim:qrobserverdestinationbravo11111111111111111111"}
	amounts := []uint64{123456789012345, 987654321098765}
	var sealed [][]byte
	for i, from := range ids {
		to := ids[1-i]
		ev := twophase.SigningEvent{Stream: "observer-stream", Nonce: uint64(7 + i), Destination: destinations[i], Amount: amounts[i],
			Source: twophase.SourceRef{Chain: "evm-observer", TxHash: twophase.Hash{byte(i + 1), 0xaa}, LogIndex: 3, Block: 42}}
		prop := twophase.Proposal{Event: ev, Epoch: 1, Round: 1, Template: []byte("template-bytes"), Proposer: from, TimestampNs: 1}
		seal := func(seq uint64, kind twophase.Kind, payload []byte) []byte {
			return twophase.Seal(c.g.Identity[from], &twophase.Envelope{Version: twophase.ProtocolVersion, Group: group, Sender: from,
				Session: 1, Seq: seq, Kind: kind, Payload: payload})
		}
		proposal := seal(1, twophase.KindProposal, prop.Encode())
		m := map[twophase.PeerID]*Mesh{a: ma, b: mb}[from]
		for _, raw := range [][]byte{
			proposal,
			seal(2, twophase.KindNoVote, twophase.NoVote{EventID: ev.ID(), Epoch: 1, Round: 1, Voter: from, Reason: "observer"}.Encode()),
			// a commit carries the proposal as its evidence
			seal(3, twophase.KindCommit, twophase.Commit{EventID: ev.ID(), Epoch: 1, Round: 1, TemplateHash: twophase.Hash{9},
				Evidence: [][]byte{proposal}, Signature: bytes.Repeat([]byte{1}, 64)}.Encode()),
		} {
			sealed = append(sealed, raw)
			if err := m.Send(context.Background(), to, raw); err != nil {
				t.Fatal(err)
			}
		}
		// and once more, so the steady state of the link is observed
		// beside its handshake
		for _, raw := range sealed[len(sealed)-3:] {
			if err := m.Send(context.Background(), to, raw); err != nil {
				t.Fatal(err)
			}
		}
	}
	waitFor(t, "every envelope delivered twice both ways", func() bool {
		return c.metrics[a].get("received", string(b)) >= 6 && c.metrics[b].get("received", string(a)) >= 6
	})
	for i, raw := range sealed {
		in, from := inB, a
		if i >= 3 {
			in, from = inA, b
		}
		if !in.has(from, string(raw)) {
			t.Fatalf("envelope %d did not arrive from %s as sent", i, from)
		}
	}
	captured, conns := proxy.bytes()
	if conns == 0 || len(captured) < 4<<10 {
		t.Fatalf("the proxy carried %d connections, %d bytes: the link did not go through it", conns, len(captured))
	}

	secrets := map[string][]byte{
		"the group id":     group[:],
		"the group id hex": []byte(group.Hex()),
	}
	for _, id := range ids {
		secrets["member id "+string(id)] = []byte(id)
		key := c.g.Identity[id].Public().(ed25519.PublicKey)
		secrets["identity key of "+string(id)] = key
	}
	for i, d := range destinations {
		secrets["destination "+d] = []byte(d)
		secrets[fmt.Sprintf("amount %d (u64 big-endian)", amounts[i])] = binary.BigEndian.AppendUint64(nil, amounts[i])
		secrets[fmt.Sprintf("amount %d (decimal)", amounts[i])] = []byte(fmt.Sprint(amounts[i]))
	}
	for _, raw := range sealed {
		// a stretch of each envelope's signature: no envelope crosses in
		// the clear
		env := raw[len(raw)-ed25519.SignatureSize:]
		secrets[fmt.Sprintf("envelope signature %x", env[:4])] = env[:16]
	}
	for name, secret := range secrets {
		if bytes.Contains(captured, secret) {
			t.Errorf("the observer saw %s in the %d bytes it captured", name, len(captured))
		}
	}
	// the check can fail: the same envelopes, sealed as they are, hold
	// what is looked for
	for _, name := range []string{"the group id", "member id member-alpha", "destination " + destinations[0]} {
		if !bytes.Contains(bytes.Join(sealed, nil), secrets[name]) {
			t.Fatalf("the envelopes do not contain %s: the observation would prove nothing", name)
		}
	}
	t.Logf("captured %d bytes over %d connections", len(captured), conns)
}

// An outsider with an ed25519 key no member has is refused in TLS. Whether
// it dials as a member's dialling side would (TLS's server role) or as a
// plain TLS client, it learns nothing of the member: no certificate, no
// key, no group id, no member id. It is counted by reason, against no
// member.
func TestOutsiderRefusedAtTLS(t *testing.T) {
	c := newCluster(t, "s1", "s2")
	c.start(c.config("s2"))
	addr := c.addrs["s2"]
	counts := c.metrics["s2"]
	s2Key := c.g.Identity["s2"].Public().(ed25519.PublicKey)
	group := c.g.Group.ID()

	t.Run("as a dialling member would", func(t *testing.T) {
		raw, got := dialRecording(t, addr)
		ctx, cancel := context.WithTimeout(context.Background(), waitBound)
		defer cancel()
		conn, err := rawTLS(ctx, raw, otherKey("outsider"))
		if err == nil {
			t.Fatal("the TLS handshake completed")
		}
		if !isRemoteAlert(err) {
			t.Fatalf("got %v, want the member's TLS alert", err)
		}
		if n := len(conn.ConnectionState().PeerCertificates); n != 0 {
			t.Fatalf("the outsider received %d certificates", n)
		}
		for name, secret := range map[string][]byte{"s2's identity key": s2Key, "the group id": group[:]} {
			if bytes.Contains(got(), secret) {
				t.Errorf("the outsider received %s", name)
			}
		}
		waitFor(t, "the unknown key counted", func() bool { return counts.get("refused", string(RefusalTLSUnknownKey)) > 0 })
	})
	t.Run("as a TLS client", func(t *testing.T) {
		raw, got := dialRecording(t, addr)
		cert, err := memberCertificate(otherKey("outsider"))
		if err != nil {
			t.Fatal(err)
		}
		conn := tls.Client(raw, &tls.Config{InsecureSkipVerify: true, Certificates: []tls.Certificate{cert}})
		_ = conn.SetDeadline(time.Now().Add(waitBound))
		if err := conn.Handshake(); err == nil {
			t.Fatal("the TLS handshake completed")
		}
		if n := len(conn.ConnectionState().PeerCertificates); n != 0 {
			t.Fatalf("the outsider received %d certificates", n)
		}
		if bytes.Contains(got(), s2Key) {
			t.Error("the outsider received s2's identity key")
		}
		waitFor(t, "the failed handshake counted", func() bool { return counts.get("refused", string(RefusalTLSFailed)) > 0 })
	})
	t.Run("with a member's public key and not its private", func(t *testing.T) {
		raw, _ := dialRecording(t, addr)
		ctx, cancel := context.WithTimeout(context.Background(), waitBound)
		defer cancel()
		if _, err := rawTLSWith(ctx, raw, forgedCertificate(t, c.g.Identity["s1"].Public().(ed25519.PublicKey))); err == nil {
			t.Fatal("the TLS handshake completed")
		}
		waitFor(t, "the unproven key counted", func() bool { return counts.get("refused", string(RefusalTLSKeyNotProven)) > 0 })
	})
	for _, o := range []Outcome{OutcomeOK, OutcomeBadProof, OutcomeUnknownMember, OutcomeMalformed, OutcomeFailed, OutcomeRefusedByPeer} {
		if n := counts.get("handshake", "s1", string(o)); n != 0 {
			t.Errorf("s1 counted for %d %s handshakes: %s", n, o, counts)
		}
	}
}

// dialRecording connects to addr and returns the connection and what it
// has read so far.
func dialRecording(t *testing.T, addr string) (net.Conn, func() []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	rc := &recordingConn{Conn: conn}
	return rc, rc.read
}

type recordingConn struct {
	net.Conn
	mu  sync.Mutex
	got []byte
}

func (c *recordingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.mu.Lock()
	c.got = append(c.got, b[:n]...)
	c.mu.Unlock()
	return n, err
}

func (c *recordingConn) read() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.got)
}

// forgedCertificate carries pub but is signed, and its TLS handshakes
// signed, by a key of its own: what anyone can make of a member's
// public key.
func forgedCertificate(t *testing.T, pub ed25519.PublicKey) tls.Certificate {
	t.Helper()
	forger := otherKey("forger")
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, forger)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: forger}
}

// A member that proved its key in TLS and names another member in its
// hello is refused, told why, and counted against (it proved its key);
// the member it named is not.
func TestHelloMustNameTheTLSKey(t *testing.T) {
	c := newCluster(t, "s1", "s2", "s3")
	c.start(c.config("s3"))
	s := rawLink(t, c.addrs["s3"], c.g.Identity["s1"])
	auth, ok := authFromContext(s.Context())
	if !ok {
		t.Fatal("no TLS on the stream")
	}
	h, err := newHello(twophase.ProtocolVersion, c.g.Group.ID(), "s2")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SendMsg(&frame{kind: frameHello, body: h.encode()}); err != nil {
		t.Fatal(err)
	}
	// a proof as s1 would make it, for a hello naming s2: it is never read
	sig := ed25519.Sign(c.g.Identity["s1"], transcript(h.version, h.group, h, hello{id: "s3"}, auth.binding))
	_ = s.SendMsg(&frame{kind: frameProof, body: sig})
	var got []frame
	for {
		var f frame
		if err := s.RecvMsg(&f); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("stream ended with %v", err)
			}
			break
		}
		got = append(got, f)
	}
	want := "peer s1, by the identity key it proved in TLS, named s2 in its hello"
	if len(got) != 1 || got[0].kind != frameRefuse || string(got[0].body) != want {
		t.Fatalf("s3 answered %v, want only the refusal %q", got, want)
	}
	waitFor(t, "s3 to count the refusal against s1", func() bool {
		return c.metrics["s3"].get("handshake", "s1", string(OutcomeUnexpectedPeer)) > 0
	})
	for _, o := range []Outcome{OutcomeOK, OutcomeUnexpectedPeer, OutcomeBadProof} {
		if n := c.metrics["s3"].get("handshake", "s2", string(o)); n != 0 {
			t.Errorf("s2, named but not present, counted for %d %s handshakes", n, o)
		}
	}
	if r, ok := c.logs["s3"].find("handshake refused", map[string]string{"peer": "s1"}); !ok || r.attrs["err"] != want {
		t.Errorf("s3 logged %v (%v), want %q", r.attrs, ok, want)
	}
}

// The certificate carries the identity key and nothing else a peer would
// not find in the group: no names, no member id.
func TestMemberCertificateNamesNothing(t *testing.T) {
	g := simledger.NewGroup("mesh", "signermesh-test", []twophase.PeerID{"member-alpha"}, 1)
	key := g.Identity["member-alpha"]
	cert, err := memberCertificate(key)
	if err != nil {
		t.Fatal(err)
	}
	leaf := cert.Leaf
	if !bytes.Equal(leaf.PublicKey.(ed25519.PublicKey), key.Public().(ed25519.PublicKey)) {
		t.Fatal("the certificate does not carry the identity key")
	}
	if leaf.Subject.String() != "" || leaf.Issuer.String() != "" || len(leaf.DNSNames)+len(leaf.IPAddresses)+len(leaf.EmailAddresses)+len(leaf.URIs) != 0 {
		t.Fatalf("the certificate names something: subject %q, issuer %q, %v %v", leaf.Subject, leaf.Issuer, leaf.DNSNames, leaf.IPAddresses)
	}
	if bytes.Contains(cert.Certificate[0], []byte("member-alpha")) || bytes.Contains(cert.Certificate[0], []byte("signermesh")) {
		t.Fatal("the certificate's bytes hold the member id or the group's name")
	}
	again, err := memberCertificate(key)
	if err != nil || !bytes.Equal(again.Certificate[0], cert.Certificate[0]) {
		t.Fatalf("a second certificate of the same key differs (%v): it depends on more than the key", err)
	}
	if strings.Contains(fmt.Sprint(leaf.Extensions), "member") {
		t.Fatal("an extension names the member")
	}
}
