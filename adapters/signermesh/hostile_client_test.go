package signermesh

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// The hostile client runs in a process of its own (this test binary run
// again with hostileEnv set), so that what it allocates is not counted in
// the signer's heap. It sends to the target on loopback only, from the
// source addresses 127.0.0.2 to 127.0.0.33, a bounded number of times
// paced over about hostilePace, and stops after hostileBudget whatever
// it is doing.
const (
	hostileEnv    = "BRIDGELOG_SIGNERMESH_HOSTILE_TARGET"
	hostileGroup  = "BRIDGELOG_SIGNERMESH_HOSTILE_GROUP"
	hostileBudget = 12 * time.Second
	hostilePace   = 6 * time.Second
	hostileIPs    = 32

	hostileIdleConns    = 3000 // TCP connections opened and held, never spoken on
	hostileH2Conns      = 40   // HTTP/2 connections, each with ...
	hostileH2Streams    = 100  // ... streams declaring a 4 MiB frame
	hostileHellos       = 5000 // streams saying hello with a made-up id
	hostileMemberHellos = 500  // hellos naming s1, with a zero proof or another version
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
	group, err := twophase.ParseHash(os.Getenv(hostileGroup))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hostileBudget)
	defer cancel()
	h := &hostile{target: target, group: group}
	var wg sync.WaitGroup
	for _, attack := range []func(context.Context){h.idle, h.declareLargeFrames, h.madeUpHellos, h.memberHellos} {
		wg.Add(1)
		go func() { defer wg.Done(); attack(ctx) }()
	}
	wg.Wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range h.held {
		c.Close()
	}
	fmt.Printf("hostile: held %d connections at most\n", len(h.held))
}

type hostile struct {
	target string
	group  twophase.Hash
	next   int

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

// declareLargeFrames opens HTTP/2 connections by hand and, on each,
// streams to Link whose first gRPC message declares 4 MiB and sends 16
// KiB of it.
func (h *hostile) declareLargeFrames(ctx context.Context) {
	var hdr bytes.Buffer
	enc := hpack.NewEncoder(&hdr)
	for _, f := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":path", linkMethod}, {":authority", h.target},
		{"content-type", "application/grpc"}, {"te", "trailers"}} {
		_ = enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	data := make([]byte, 5+16<<10)
	binary.BigEndian.PutUint32(data[1:], 4<<20)
	for range hostileH2Conns {
		if !pace(ctx, hostileH2Conns) {
			return
		}
		c, err := h.dial(ctx)
		if err != nil {
			continue
		}
		h.hold(c)
		_ = c.SetWriteDeadline(time.Now().Add(time.Second))
		if _, err := c.Write([]byte(http2.ClientPreface)); err != nil {
			continue
		}
		fr := http2.NewFramer(c, c)
		_ = fr.WriteSettings()
		for i := range hostileH2Streams {
			id := uint32(2*i + 1)
			if fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hdr.Bytes(), EndHeaders: true}) != nil ||
				fr.WriteData(id, false, data) != nil {
				break
			}
		}
	}
}

// madeUpHellos: gRPC streams saying hello with ids no member has, and a
// zero proof.
func (h *hostile) madeUpHellos(ctx context.Context) {
	h.hellos(ctx, hostileHellos, func(i int) hello {
		return hello{version: twophase.ProtocolVersion, group: h.group, id: twophase.PeerID("mallory-" + strconv.Itoa(i))}
	})
}

// memberHellos: hellos naming the member s1, half of them of another
// protocol version, each with a zero proof.
func (h *hostile) memberHellos(ctx context.Context) {
	h.hellos(ctx, hostileMemberHellos, func(i int) hello {
		return hello{version: twophase.ProtocolVersion + uint16(i%2), group: h.group, id: "s1"}
	})
}

func (h *hostile) hellos(ctx context.Context, n int, make func(int) hello) {
	const workers = 16
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n && pace(ctx, n/workers); i += workers {
				h.oneHello(ctx, make(i))
			}
		}()
	}
	wg.Wait()
}

func (h *hostile) oneHello(ctx context.Context, hl hello) {
	conn, err := grpc.NewClient("passthrough:///"+h.target, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return h.dial(ctx) }),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(frameCodec{})))
	if err != nil {
		return
	}
	defer conn.Close()
	sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	s, err := conn.NewStream(sctx, &serviceDesc.Streams[0], linkMethod)
	if err != nil {
		return
	}
	_, _ = rand.Read(hl.nonce[:])
	if s.SendMsg(&frame{kind: frameHello, body: hl.encode()}) != nil {
		return
	}
	var f frame
	if s.RecvMsg(&f) != nil || f.kind != frameChallenge {
		return
	}
	_ = s.SendMsg(&frame{kind: frameProof, body: make([]byte, 64)})
	for s.RecvMsg(&f) == nil {
	}
}
