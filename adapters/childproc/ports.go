package childproc

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// lowestPort is where FreeLoopbackPorts starts looking: above the ports
// services usually own.
const lowestPort = 10000

// handedOut remembers the ports this process gave out, so two calls never
// give the same port while the first child is still starting.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// FreeLoopbackPorts finds count distinct free ports on 127.0.0.1 for a
// child to listen on. They come from below the kernel's ephemeral range:
// a port there is never given to an outgoing connection, which otherwise
// (a port let go by a listener on :0 is an ephemeral one) can take it
// between this check and the child's bind. Each is held until all are
// found, and none is given twice by one process; another process picking
// the same way may still race the child, which the child's start reports.
func FreeLoopbackPorts(count int) ([]int, error) {
	handedOut.Lock()
	defer handedOut.Unlock()
	top := ephemeralStart()
	span := top - lowestPort
	first := rand.IntN(span)
	var ports []int
	for i := 0; i < span && len(ports) < count; i++ {
		port := lowestPort + (first+i)%span
		if handedOut.ports[port] {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			continue // taken
		}
		defer l.Close()
		ports = append(ports, port)
	}
	if len(ports) < count {
		return nil, fmt.Errorf("no free loopback port between %d and %d", lowestPort, top)
	}
	for _, p := range ports {
		handedOut.ports[p] = true
	}
	return ports, nil
}

// FreeLoopbackAddr is one free port's address on 127.0.0.1 (see
// FreeLoopbackPorts).
func FreeLoopbackAddr() (string, error) {
	ports, err := FreeLoopbackPorts(1)
	if err != nil {
		return "", err
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0])), nil
}

// ephemeralStart is the first port the kernel gives outgoing connections
// (Linux's ip_local_port_range; 32768 where it cannot be read).
func ephemeralStart() int {
	const fallback = 32768
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return fallback
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return fallback
	}
	n, err := strconv.Atoi(fields[0])
	if err != nil || n <= lowestPort+1000 {
		return fallback
	}
	return n
}
