package signermesh

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

func TestHelloEncoding(t *testing.T) {
	h := hello{version: 7, group: twophase.Hash{1, 2, 3}, id: "s12", nonce: [NonceBytes]byte{9, 8, 7}}
	got, err := parseHello(h.encode())
	if err != nil || got != h {
		t.Fatalf("round trip: %+v, %v; want %+v", got, err, h)
	}
	long := h
	long.id = twophase.PeerID(strings.Repeat("x", twophase.MaxPeerIDBytes+1))
	bad := map[string][]byte{
		"empty":          nil,
		"cut short":      h.encode()[:20],
		"trailing bytes": append(h.encode(), 0),
		"empty id":       hello{version: 1}.encode(),
		"id too long":    long.encode(),
	}
	for name, b := range bad {
		if _, err := parseHello(b); !errors.Is(err, errHelloMalformed) {
			t.Errorf("%s: got %v, want errHelloMalformed", name, err)
		}
	}
}

// A proof is good for one link (its nonces and its TLS session), one
// direction and one version and group.
func TestProofBinding(t *testing.T) {
	c := newCluster(t, "s1", "s2")
	m := &Mesh{cfg: Config{ProtocolVersion: twophase.ProtocolVersion}, group: c.g.Group.ID(),
		keys: map[twophase.PeerID]ed25519.PublicKey{}}
	for _, mem := range c.g.Members {
		m.keys[mem.ID] = mem.IdentityKey
	}
	s1 := hello{version: twophase.ProtocolVersion, group: m.group, id: "s1", nonce: [NonceBytes]byte{1}}
	s2 := hello{version: twophase.ProtocolVersion, group: m.group, id: "s2", nonce: [NonceBytes]byte{2}}
	session := bytes.Repeat([]byte{5}, bindingBytes) // the TLS session's exporter value
	// sign is s1's signature over a transcript.
	sign := func(prover, verifier hello, version uint16, group twophase.Hash, binding []byte) []byte {
		return ed25519.Sign(c.g.Identity["s1"], transcript(version, group, prover, verifier, binding))
	}
	if err := m.checkProof(s1, s2, sign(s1, s2, twophase.ProtocolVersion, m.group, session), session); err != nil {
		t.Fatalf("a good proof refused: %v", err)
	}
	otherNonce := s2
	otherNonce.nonce[0] = 3
	bad := map[string][]byte{
		"for another link's nonce":    sign(s1, otherNonce, twophase.ProtocolVersion, m.group, session),
		"of another version":          sign(s1, s2, twophase.ProtocolVersion+1, m.group, session),
		"of another group":            sign(s1, s2, twophase.ProtocolVersion, twophase.Hash{1}, session),
		"with the roles swapped":      sign(s2, s1, twophase.ProtocolVersion, m.group, session),
		"truncated":                   sign(s1, s2, twophase.ProtocolVersion, m.group, session)[:10],
		"made on another TLS session": sign(s1, s2, twophase.ProtocolVersion, m.group, bytes.Repeat([]byte{6}, bindingBytes)),
	}
	for name, sig := range bad {
		if err := m.checkProof(s1, s2, sig, session); err == nil || err.Outcome != OutcomeBadProof {
			t.Errorf("%s: got %v, want a bad proof", name, err)
		}
	}
}

// A link delivers nothing before its handshake completed: a member (it
// proved its key in TLS) that sends an envelope where its hello or its
// proof is due is refused, told why and counted against, and the
// receiver never sees the envelope.
func TestNoEnvelopeBeforeHandshake(t *testing.T) {
	c := newCluster(t, "s1", "s2")
	cfg := c.config("s2")
	cfg.RefusalLogInterval = time.Nanosecond // a line for each case
	s2 := c.start(cfg)
	in := &inbox{}
	s2.Attach(in.receiver())
	g := c.g.Group.ID()
	tests := []struct {
		name   string
		before []frame
		due    string
	}{
		{"instead of the hello", nil, "hello"},
		{"instead of the proof", []frame{{kind: frameHello, body: hello{version: twophase.ProtocolVersion, group: g, id: "s1"}.encode()}}, "proof"},
		{"in fragments instead of the proof", []frame{{kind: frameHello, body: hello{version: twophase.ProtocolVersion, group: g, id: "s1"}.encode()},
			{kind: frameFragment, body: []byte("part")}}, "proof"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := rawLink(t, c.addrs["s2"], c.g.Identity["s1"])
			for _, f := range append(tc.before, frame{kind: frameEnvelope, body: []byte("sneaked in")}) {
				if err := s.SendMsg(&f); err != nil {
					t.Fatal(err)
				}
			}
			var refusal string
			for {
				var f frame
				if err := s.RecvMsg(&f); err != nil {
					if !errors.Is(err, io.EOF) {
						t.Fatalf("stream ended with %v", err)
					}
					break
				}
				if f.kind == frameRefuse {
					refusal = string(f.body)
				}
			}
			want := "peer s1 sent envelope where its " + tc.due + " was due"
			if tc.name == "in fragments instead of the proof" {
				want = "peer s1 sent fragment where its proof was due"
			}
			if refusal != want {
				t.Fatalf("refusal %q, want %q", refusal, want)
			}
			waitFor(t, "the malformed handshake logged", func() bool {
				return c.logs["s2"].containing("handshake refused", "err", want)
			})
			if n := c.metrics["s2"].get("handshake", "s1", string(OutcomeMalformed)); n == 0 {
				t.Fatalf("not counted: %s", c.metrics["s2"])
			}
			if in.has("", "sneaked in") || in.has("s1", "sneaked in") {
				t.Fatal("the envelope was delivered")
			}
			if n := c.metrics["s2"].get("received", "s1"); n != 0 {
				t.Fatalf("s2 counted %d envelopes received", n)
			}
		})
	}
}

// rawLink opens a Link stream to addr without a mesh behind it, proving
// key in TLS.
func rawLink(t *testing.T, addr string, key ed25519.PrivateKey, opts ...grpc.CallOption) grpc.ClientStream {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(rawCredentials{key: key}),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(frameCodec{})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s, err := conn.NewStream(ctx, &serviceDesc.Streams[0], linkMethod, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
