package childproc

import (
	"net"
	"strconv"
	"testing"
)

// The ports come from below the ephemeral range (no outgoing connection
// can take them), are distinct across calls, and can be bound.
func TestFreeLoopbackPortsAreOutsideTheEphemeralRange(t *testing.T) {
	seen := map[int]bool{}
	for range 20 {
		ports, err := FreeLoopbackPorts(3)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ports {
			if p < lowestPort || p >= ephemeralStart() {
				t.Fatalf("port %d outside [%d, %d)", p, lowestPort, ephemeralStart())
			}
			if seen[p] {
				t.Fatalf("port %d given twice", p)
			}
			seen[p] = true
		}
	}
	addr, err := FreeLoopbackAddr()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("the address given cannot be bound: %v", err)
	}
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	if p, _ := strconv.Atoi(port); seen[p] {
		t.Fatalf("port %d given twice", p)
	}
}
