package signermesh

import (
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The hostile client runs in a process of its own (this test binary run
// again with hostileEnv set), so that what it allocates is not counted in
// the signer's heap. It cannot finish TLS with a member, so it attacks
// the connection limits and the TLS handshake itself. It sends to the target on loopback only, from the
// source addresses 127.0.0.2 to 127.0.0.33, a bounded number of times
// paced over about hostilePace, and stops after hostileBudget whatever
// it is doing.
const (
	hostileEnv    = "BRIDGELOG_SIGNERMESH_HOSTILE_TARGET"
	hostileKey    = "BRIDGELOG_SIGNERMESH_HOSTILE_MEMBER_KEY" // s1's public identity key, hex
	hostileBudget = 12 * time.Second
	hostilePace   = 6 * time.Second
	hostileIPs    = 32

	hostileIdleConns   = 3000 // TCP connections opened and held, the member's ClientHello never answered
	hostileStalledTLS  = 40   // connections answering with the start of a maximal TLS record, then silent
	hostileUnknownKeys = 5000 // TLS handshakes with a key no member has
	hostileMemberKeys  = 500  // TLS handshakes showing s1's public key, signed with another
)

// TestHostileClientProcess is the hostile client; it does nothing unless
// run by TestHostileOutsider.
func TestHostileClientProcess(t *testing.T) {
	target := os.Getenv(hostileEnv)
	if target == "" {
		t.Skip("run by TestHostileOutsider")
	}
	if host, _, err := net.SplitHostPort(target); err != nil || host != "127.0.0.1" {
		t.Fatalf("the hostile client only targets 127.0.0.1, not %q", target)
	}
	memberKey, err := hex.DecodeString(os.Getenv(hostileKey))
	if err != nil || len(memberKey) != ed25519.PublicKeySize {
		t.Fatalf("member key %q: %v", os.Getenv(hostileKey), err)
	}
	unknown, err := memberCertificate(otherKey("hostile"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hostileBudget)
	defer cancel()
	h := &hostile{target: target, unknown: unknown, forged: forgedCertificate(t, memberKey)}
	var wg sync.WaitGroup
	for _, attack := range []func(context.Context){h.idle, h.stallTLS, h.unknownKeys, h.memberKeys} {
		wg.Add(1)
		go func() { defer wg.Done(); attack(ctx) }()
	}
	wg.Wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range h.held {
		c.Close()
	}
	fmt.Printf("hostile: held %d connections at most; %d TLS handshakes refused, %d completed\n", len(h.held), h.refused.Load(), h.completed.Load())
	if h.completed.Load() != 0 {
		t.Fatalf("%d TLS handshakes completed without a member's private key", h.completed.Load())
	}
}

type hostile struct {
	target          string
	unknown, forged tls.Certificate
	next            int

	refused, completed atomic.Int64

	mu   sync.Mutex
	held []net.Conn
}

// dial connects from one of 127.0.0.2-33, in turn.
func (h *hostile) dial(ctx context.Context) (net.Conn, error) {
	h.mu.Lock()
	h.next++
	src := &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+h.next%hostileIPs))}
	h.mu.Unlock()
	d := net.Dialer{LocalAddr: src, Timeout: time.Second}
	return d.DialContext(ctx, "tcp", h.target)
}

// pace waits so that n steps take about hostilePace; false once ctx
// ends.
func pace(ctx context.Context, n int) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(hostilePace / time.Duration(n)):
		return true
	}
}

func (h *hostile) hold(c net.Conn) {
	h.mu.Lock()
	h.held = append(h.held, c)
	h.mu.Unlock()
}

func (h *hostile) idle(ctx context.Context) {
	for range hostileIdleConns {
		if !pace(ctx, hostileIdleConns) {
			return
		}
		if c, err := h.dial(ctx); err == nil {
			h.hold(c)
		}
	}
}

// stallTLS reads the member's ClientHello and answers with the header of
// a TLS record of the largest length TLS 1.3 allows and half its body,
// then holds the connection.
func (h *hostile) stallTLS(ctx context.Context) {
	const maxRecord = 16384 + 256
	record := make([]byte, 5+maxRecord/2)
	record[0], record[1], record[2] = 22, 3, 3 // handshake, TLS 1.2 on the wire
	binary.BigEndian.PutUint16(record[3:], maxRecord)
	for range hostileStalledTLS {
		if !pace(ctx, hostileStalledTLS) {
			return
		}
		c, err := h.dial(ctx)
		if err != nil {
			continue
		}
		h.hold(c)
		_ = c.SetDeadline(time.Now().Add(time.Second))
		if _, err := c.Read(make([]byte, 4<<10)); err == nil {
			_, _ = c.Write(record)
		}
	}
}

// unknownKeys: TLS handshakes as a dialling member would make them,
// with a key no member has.
func (h *hostile) unknownKeys(ctx context.Context) {
	h.handshakes(ctx, hostileUnknownKeys, h.unknown)
}

// memberKeys: TLS handshakes with a certificate of s1's public key,
// signed (as is the handshake) with another key: all anyone can make of
// a member's key without its private half.
func (h *hostile) memberKeys(ctx context.Context) {
	h.handshakes(ctx, hostileMemberKeys, h.forged)
}

func (h *hostile) handshakes(ctx context.Context, n int, cert tls.Certificate) {
	const workers = 16
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n && pace(ctx, n/workers); i += workers {
				h.oneHandshake(ctx, cert)
			}
		}()
	}
	wg.Wait()
}

func (h *hostile) oneHandshake(ctx context.Context, cert tls.Certificate) {
	raw, err := h.dial(ctx)
	if err != nil {
		return
	}
	defer raw.Close()
	hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := rawTLSWith(hctx, raw, cert)
	if err != nil {
		if isRemoteAlert(err) {
			h.refused.Add(1)
		}
		return
	}
	// a completed handshake would mean the member took the key: the test
	// fails on it
	h.completed.Add(1)
	conn.Close()
}
