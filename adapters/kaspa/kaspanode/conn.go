package kaspanode

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kaspanet/kaspad/app/appmessage"
	routerpkg "github.com/kaspanet/kaspad/infrastructure/network/netadapter/router"
	"github.com/kaspanet/kaspad/infrastructure/network/rpcclient/grpcclient"
)

// conn is one gRPC stream to the node, built from rpcclient's transport
// (rpcclient/grpcclient) rather than rpcclient.RPCClient: on a lost
// stream, RPCClient reconnects by itself from its receive goroutine,
// replacing its connection under running calls, retrying every 10 s
// forever (also after Close), and panics (exiting the process through
// kaspad's goroutine wrapper) when it is closed while doing so. Here a
// lost stream only marks the conn broken; the Client dials a new one.
//
// kaspad answers each command on its own route, in order. A request whose
// answer is abandoned (a timeout) would leave that answer to be read by
// the next request of the same command, so abandoning a call breaks the
// conn, and requests go one at a time.
type conn struct {
	grpc   *grpcclient.GRPCClient
	router *routerpkg.Router
	routes map[appmessage.MessageCommand]*routerpkg.Route

	broken chan struct{} // closed once the conn is unusable
	mu     sync.Mutex
	reason error
}

// dial opens a stream to address. grpcclient.Connect takes no context (it
// waits up to 5 s for the connection): a dial abandoned by ctx is closed
// when it completes.
func dial(ctx context.Context, address string) (*conn, error) {
	type result struct {
		g   *grpcclient.GRPCClient
		err error
	}
	done := make(chan result, 1)
	go func() {
		g, err := grpcclient.Connect(address)
		done <- result{g, err}
	}()
	var g *grpcclient.GRPCClient
	select {
	case r := <-done:
		if r.err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrUnavailable, address, r.err)
		}
		g = r.g
	case <-ctx.Done():
		go func() {
			if r := <-done; r.g != nil {
				_ = r.g.Close()
			}
		}()
		return nil, fmt.Errorf("%w: %s: dial abandoned: %w", ErrUnavailable, address, ctx.Err())
	}

	c := &conn{grpc: g, router: routerpkg.NewRouter("bridgelog kaspanode"),
		routes: map[appmessage.MessageCommand]*routerpkg.Route{}, broken: make(chan struct{})}
	for cmd := range appmessage.RPCMessageCommandToString {
		route, err := c.router.AddIncomingRoute("kaspanode", []appmessage.MessageCommand{cmd})
		if err != nil {
			_ = g.Close()
			return nil, fmt.Errorf("kaspanode: route for %s: %w", cmd, err)
		}
		c.routes[cmd] = route
	}
	// Set before AttachRouter starts the loops that call them: without
	// handlers grpcclient panics on any stream error.
	g.SetOnErrorHandler(func(err error) { c.fail(fmt.Errorf("stream error: %w", err)) })
	g.SetOnDisconnectedHandler(func() { c.fail(errors.New("the node closed the stream")) })
	g.AttachRouter(c.router)
	return c, nil
}

// fail marks the conn broken (once) and releases every waiting call: the
// router's routes close, so their Dequeue returns at once.
func (c *conn) fail(reason error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.broken:
		return
	default:
	}
	if reason == nil {
		reason = errors.New("connection closed")
	}
	c.reason = reason
	close(c.broken)
	c.router.Close() // closes each route; must run once (a route closes its channel)
	_ = c.grpc.Close()
}

// failure is why the conn broke (nil while it works).
func (c *conn) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reason
}

// roundTrip sends req and waits for the answer of command answer, until
// ctx ends; the caller holds the client's one-request-at-a-time slot.
func (c *conn) roundTrip(ctx context.Context, req appmessage.Message, answer appmessage.MessageCommand) (appmessage.Message, error) {
	route := c.routes[answer]
	if route == nil {
		return nil, fmt.Errorf("kaspanode: no route for %s", answer)
	}
	stop := context.AfterFunc(ctx, func() { c.fail(fmt.Errorf("call abandoned: %w", context.Cause(ctx))) })
	defer stop()
	if err := c.router.OutgoingRoute().Enqueue(req); err != nil {
		c.fail(fmt.Errorf("send: %w", err))
		return nil, c.lost(ctx)
	}
	msg, err := route.Dequeue()
	if err != nil {
		return nil, c.lost(ctx)
	}
	return msg, nil
}

// lost is the error of a call that got no answer.
func (c *conn) lost(ctx context.Context) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: no answer in time: %w", ErrUnavailable, ctx.Err())
	}
	return fmt.Errorf("%w: %v", ErrUnavailable, c.failure())
}

// ask sends req on cn and returns the answer as T, the response type
// whose command answers req.
func ask[T appmessage.Message](ctx context.Context, cn *conn, req appmessage.Message) (T, error) {
	var zero T
	msg, err := cn.roundTrip(ctx, req, zero.Command())
	if err != nil {
		return zero, err
	}
	t, ok := msg.(T)
	if !ok {
		cn.fail(fmt.Errorf("answer of type %T to %s", msg, req.Command()))
		return zero, fmt.Errorf("%w: unexpected answer %T to %s", ErrUnavailable, msg, req.Command())
	}
	return t, nil
}
