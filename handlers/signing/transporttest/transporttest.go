// Package transporttest is the conformance suite of the signers'
// transport ([signing.Transport]): the in-process bus and the gRPC mesh
// both run [Run], so the protocol can rely on the same behaviour from
// either.
package transporttest

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers/signing"
)

// Net is a transport under test, with members already connected.
type Net interface {
	// Endpoint is member id's transport.
	Endpoint(id twophase.PeerID) signing.Transport
	// Attach makes recv receive what reaches member id.
	Attach(id twophase.PeerID, recv func(raw []byte))
}

// waitBound guards against a transport that hangs; not a performance
// assertion.
const waitBound = 30 * time.Second

// Run runs the suite; newNet builds a fresh network of the given members
// and closes it when the test ends.
func Run(t *testing.T, newNet func(t *testing.T, members []twophase.PeerID) Net) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, n Net, members []twophase.PeerID)
	}{
		{"BroadcastReachesEveryOtherMember", testBroadcast},
		{"DirectSendReachesOneMember", testDirect},
		{"UnknownMemberIsAnError", testUnknown},
		{"LargeMessageIntact", testLarge},
		{"ConcurrentSends", testConcurrent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			members := []twophase.PeerID{"m1", "m2", "m3", "m4"}
			tc.fn(t, newNet(t, members), members)
		})
	}
}

// inbox collects what members receive.
type inbox struct {
	mu   sync.Mutex
	got  map[twophase.PeerID][][]byte
	cond *sync.Cond
}

func attach(n Net, members []twophase.PeerID) *inbox {
	in := &inbox{got: map[twophase.PeerID][][]byte{}}
	in.cond = sync.NewCond(&in.mu)
	for _, m := range members {
		m := m
		n.Attach(m, func(raw []byte) {
			in.mu.Lock()
			in.got[m] = append(in.got[m], bytes.Clone(raw))
			in.cond.Broadcast()
			in.mu.Unlock()
		})
	}
	return in
}

// wait blocks until total messages arrived (or fails after waitBound).
func (in *inbox) wait(t *testing.T, total int) {
	t.Helper()
	deadline := time.AfterFunc(waitBound, func() {
		in.mu.Lock()
		in.cond.Broadcast()
		in.mu.Unlock()
	})
	defer deadline.Stop()
	start := time.Now()
	in.mu.Lock()
	defer in.mu.Unlock()
	for in.count() < total {
		if time.Since(start) > waitBound {
			t.Fatalf("%d of %d messages arrived", in.count(), total)
		}
		in.cond.Wait()
	}
}

func (in *inbox) count() int {
	n := 0
	for _, g := range in.got {
		n += len(g)
	}
	return n
}

func testBroadcast(t *testing.T, n Net, members []twophase.PeerID) {
	in := attach(n, members)
	if err := n.Endpoint("m1").Send(context.Background(), "", []byte("to all")); err != nil {
		t.Fatal(err)
	}
	in.wait(t, len(members)-1)
	time.Sleep(50 * time.Millisecond) // nothing more may come
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.got["m1"]) != 0 {
		t.Fatal("the sender received its own broadcast")
	}
	for _, m := range members[1:] {
		if len(in.got[m]) != 1 || string(in.got[m][0]) != "to all" {
			t.Fatalf("%s received %q", m, in.got[m])
		}
	}
}

func testDirect(t *testing.T, n Net, members []twophase.PeerID) {
	in := attach(n, members)
	if err := n.Endpoint("m2").Send(context.Background(), "m3", []byte("to m3")); err != nil {
		t.Fatal(err)
	}
	in.wait(t, 1)
	time.Sleep(50 * time.Millisecond)
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.got["m3"]) != 1 || in.count() != 1 {
		t.Fatalf("received %v", in.got)
	}
}

func testUnknown(t *testing.T, n Net, members []twophase.PeerID) {
	attach(n, members)
	if err := n.Endpoint("m1").Send(context.Background(), "mallory", []byte("x")); err == nil {
		t.Fatal("a send to an unknown member succeeded")
	}
}

func testLarge(t *testing.T, n Net, members []twophase.PeerID) {
	in := attach(n, members)
	big := make([]byte, 1<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	if err := n.Endpoint("m4").Send(context.Background(), "m1", big); err != nil {
		t.Fatal(err)
	}
	in.wait(t, 1)
	in.mu.Lock()
	defer in.mu.Unlock()
	if !bytes.Equal(in.got["m1"][0], big) {
		t.Fatal("a 1 MiB message arrived changed")
	}
}

func testConcurrent(t *testing.T, n Net, members []twophase.PeerID) {
	in := attach(n, members)
	const each = 50
	var wg sync.WaitGroup
	for _, m := range members {
		m := m
		wg.Go(func() {
			for i := 0; i < each; i++ {
				if err := n.Endpoint(m).Send(context.Background(), "", []byte(fmt.Sprintf("%s/%d", m, i))); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	in.wait(t, len(members)*each*(len(members)-1))
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, m := range members {
		seen := map[string]bool{}
		for _, raw := range in.got[m] {
			if seen[string(raw)] {
				t.Fatalf("%s received %q twice", m, raw)
			}
			seen[string(raw)] = true
		}
		if len(seen) != (len(members)-1)*each {
			t.Fatalf("%s received %d distinct messages", m, len(seen))
		}
	}
}
