// Package kaspanode is a signer's view of the Kaspa ledger through its own
// kaspad node (gRPC, github.com/kaspanet/kaspad v0.12.23; rusty-kaspa
// serves the same API): the group address's outputs and pending spends,
// whether a payout was accepted and how deep, and the submission of
// signed payouts. It implements the signing handler's Ledger. The relay's
// Kaspa indexer reads the virtual chain's changes and the transactions
// each chain block accepted through it too (chain.go, deposits.go).
//
// The client keeps one connection, dials it again with backoff when the
// node goes away, and uses no notifications (kaspad's notification
// goroutines panic on route errors, and they would need registering again
// after each reconnect): everything is asked when needed, and the virtual
// DAA score is polled for the lag gauge.
package kaspanode

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/kaspanet/kaspad/app/appmessage"
	"github.com/kaspanet/kaspad/domain/dagconfig"
	"github.com/kaspanet/kaspad/util"

	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// Errors. Each error a call returns wraps one of them.
var (
	// ErrUnavailable: no answer from the node (down, unreachable, the
	// connection lost, or no answer within the timeout).
	ErrUnavailable = errors.New("kaspa node unavailable")
	// ErrWrongNetwork: the node is on another network than the group.
	ErrWrongNetwork = errors.New("kaspa node is on another network")
	// ErrNoUTXOIndex: the node runs without --utxoindex, so it cannot list
	// an address's outputs.
	ErrNoUTXOIndex = errors.New("kaspa node runs without --utxoindex")
	// ErrNode: the node answered a call with an error (see NodeError).
	ErrNode = errors.New("kaspa node answered with an error")
	// ErrRefused: the node refused a submitted transaction (see
	// RefusedError).
	ErrRefused = errors.New("kaspa node refused the transaction")
	// ErrUnsettled: the payout is in a block the virtual merges but no
	// chain block has accepted yet; asked again after the next block, the
	// answer is settled.
	ErrUnsettled = errors.New("payout acceptance not settled yet")
	// ErrMalformed: Submit was given bytes that are not a serialized
	// transaction.
	ErrMalformed = errors.New("malformed transaction")
)

// NodeError is the node's error answer to a call.
type NodeError struct {
	Call    string
	Message string
}

func (e *NodeError) Error() string { return fmt.Sprintf("kaspa node: %s: %s", e.Call, e.Message) }

// Is makes errors.Is(err, ErrNode) true.
func (e *NodeError) Is(target error) bool { return target == ErrNode }

// Metrics receives the client's observations.
type Metrics interface {
	// RPCError counts a call that failed: no answer, or an error answer
	// (a refused transaction is not one: Submit returns it).
	RPCError(call string)
	// Reconnected counts a connection dialled again after it was lost.
	Reconnected()
	// VirtualDAAScore is the node's virtual DAA score, at every answer that
	// carries it: a node behind its peers shows a lower score.
	VirtualDAAScore(score uint64)
}

type nopMetrics struct{}

func (nopMetrics) RPCError(string)        {}
func (nopMetrics) Reconnected()           {}
func (nopMetrics) VirtualDAAScore(uint64) {}

// Config sets a client up. Node, Network and Address are required.
type Config struct {
	// Node is the host:port of the node's gRPC server (kaspad --rpclisten).
	Node string
	// Network is the group's network as configs name it (kaspa-mainnet,
	// kaspa-testnet, kaspa-simnet, kaspa-devnet); a node on another one is
	// refused.
	Network string
	// Address is the group address whose outputs the ledger view holds.
	Address util.Address
	// WithoutUTXOIndex accepts a node without --utxoindex, for a caller
	// that lists no outputs (the relay's Kaspa indexer follows the chain).
	WithoutUTXOIndex bool
	// Timeout bounds each call to the node (default 10 s).
	Timeout time.Duration
	// PollInterval is how often the virtual DAA score is read for the
	// gauge while nothing else asks (default 1 s).
	PollInterval time.Duration
	// MinBackoff and MaxBackoff bound the wait between dials after the
	// connection is lost (defaults 200 ms and 10 s; doubles per failure).
	MinBackoff, MaxBackoff time.Duration
	// MaxWatched bounds the payouts whose acceptance the client tracks
	// (default 1024; the least recently asked is forgotten first, and
	// found again by a scan if asked again).
	MaxWatched int
	Metrics    Metrics
	Logger     *slog.Logger
}

func (cfg *Config) defaults() {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = time.Second
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = 200 * time.Millisecond
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = max(10*time.Second, cfg.MinBackoff)
	}
	if cfg.MaxWatched <= 0 {
		cfg.MaxWatched = 1024
	}
	if cfg.Metrics == nil {
		cfg.Metrics = nopMetrics{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
}

// Client is the ledger of one group address through one node. Safe for
// concurrent use; requests to the node go one at a time.
type Client struct {
	cfg     Config
	params  *dagconfig.Params
	address string // cfg.Address encoded, as the RPC takes it
	log     *slog.Logger

	slot chan struct{} // one request in flight (see conn)

	mu      sync.Mutex
	conn    *conn // nil while disconnected
	lastErr error // why the last dial failed, while disconnected

	chain follower

	// missing holds, per outpoint InputStatus found gone, the virtual DAA
	// score of the first miss (guarded by mu; only signed payouts' inputs
	// are asked about, and an output seen again is forgotten).
	missing map[twophase.Outpoint]uint64

	life context.Context // ends at Close
	stop context.CancelFunc
	done chan struct{} // closed when keepUp returned
}

// New connects to the node, checks that it is on the group's network and
// keeps a UTXO index, and starts keeping the connection up. It fails when
// the first connection fails; the caller retries (a process manager, a
// restart).
func New(ctx context.Context, cfg Config) (*Client, error) {
	cfg.defaults()
	if cfg.Node == "" {
		return nil, errors.New("kaspanode: Config.Node is empty")
	}
	if cfg.Address == nil {
		return nil, errors.New("kaspanode: Config.Address is nil")
	}
	params, err := kaspa.Params(cfg.Network)
	if err != nil {
		return nil, err
	}
	if !cfg.Address.IsForPrefix(params.Prefix) {
		return nil, fmt.Errorf("%w: group address %s is not a %s address", kaspa.ErrNetwork, cfg.Address, cfg.Network)
	}
	c := &Client{cfg: cfg, params: params, address: cfg.Address.String(), log: cfg.Logger,
		slot: make(chan struct{}, 1), done: make(chan struct{})}
	c.chain.init(cfg.MaxWatched)
	cn, info, err := c.connect(ctx)
	if err != nil {
		return nil, err
	}
	c.log.Info("kaspa node connected", "node", cfg.Node, "network", cfg.Network,
		"server_version", info.ServerVersion, "synced", info.IsSynced)
	c.life, c.stop = context.WithCancel(context.Background())
	c.conn = cn
	go c.keepUp()
	return c, nil
}

// Close stops the client and closes its connection. Calls after Close
// fail with ErrUnavailable.
func (c *Client) Close() error {
	c.stop()
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		c.conn.fail(errors.New("client closed"))
		c.conn = nil
	}
	c.lastErr = errors.New("client closed")
	return nil
}

// connect dials the node and checks its network and UTXO index.
func (c *Client) connect(ctx context.Context) (*conn, *appmessage.GetInfoResponseMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	cn, err := dial(ctx, c.cfg.Node)
	if err != nil {
		return nil, nil, err
	}
	info, err := c.check(ctx, cn)
	if err != nil {
		cn.fail(err)
		return nil, nil, err
	}
	return cn, info, nil
}

// check refuses a node of another network or without a UTXO index.
func (c *Client) check(ctx context.Context, cn *conn) (*appmessage.GetInfoResponseMessage, error) {
	network, err := ask[*appmessage.GetCurrentNetworkResponseMessage](ctx, cn, appmessage.NewGetCurrentNetworkRequestMessage())
	if err != nil {
		return nil, err
	}
	if network.Error != nil {
		return nil, &NodeError{Call: "get_current_network", Message: network.Error.Message}
	}
	if want := c.params.Net.String(); network.CurrentNetwork != want {
		return nil, fmt.Errorf("%w: node %s is on %s, the group %s is on %s (%s)",
			ErrWrongNetwork, c.cfg.Node, network.CurrentNetwork, c.address, want, c.cfg.Network)
	}
	info, err := ask[*appmessage.GetInfoResponseMessage](ctx, cn, appmessage.NewGetInfoRequestMessage())
	if err != nil {
		return nil, err
	}
	if info.Error != nil {
		return nil, &NodeError{Call: "get_info", Message: info.Error.Message}
	}
	if !info.IsUtxoIndexed && !c.cfg.WithoutUTXOIndex {
		return nil, fmt.Errorf("%w: node %s (start it with --utxoindex)", ErrNoUTXOIndex, c.cfg.Node)
	}
	return info, nil
}

// keepUp dials again with backoff whenever the connection is lost, and
// polls the virtual DAA score for the gauge meanwhile.
func (c *Client) keepUp() {
	defer close(c.done)
	poll := time.NewTicker(c.cfg.PollInterval)
	defer poll.Stop()
	for {
		c.mu.Lock()
		cn := c.conn
		c.mu.Unlock()
		select {
		case <-c.life.Done():
			return
		case <-cn.broken:
			c.log.Warn("kaspa node connection lost", "node", c.cfg.Node, "err", cn.failure())
			if !c.redial(cn.failure()) {
				return
			}
		case <-poll.C:
			if _, err := c.blockDAGInfo(c.life); err != nil {
				c.log.Debug("kaspa node poll failed", "node", c.cfg.Node, "err", err)
			}
		}
	}
}

// redial replaces a lost connection, waiting between attempts; false when
// the client closed meanwhile.
func (c *Client) redial(reason error) bool {
	c.mu.Lock()
	c.conn, c.lastErr = nil, reason
	c.mu.Unlock()
	wait, refused := c.cfg.MinBackoff, false
	for attempt := 1; ; attempt++ {
		select {
		case <-c.life.Done():
			return false
		case <-time.After(jitter(wait)):
		}
		cn, info, err := c.connect(c.life)
		if err == nil {
			c.mu.Lock()
			c.conn, c.lastErr = cn, nil
			c.mu.Unlock()
			c.cfg.Metrics.Reconnected()
			c.log.Info("kaspa node reconnected", "node", c.cfg.Node, "attempts", attempt,
				"server_version", info.ServerVersion, "synced", info.IsSynced)
			return true
		}
		c.mu.Lock()
		c.lastErr = err
		c.mu.Unlock()
		c.log.Debug("kaspa node dial failed", "node", c.cfg.Node, "attempt", attempt, "err", err)
		if (errors.Is(err, ErrWrongNetwork) || errors.Is(err, ErrNoUTXOIndex)) && !refused {
			refused = true // the node answers but is not one to use: an operator's matter
			c.log.Error("kaspa node refused", "node", c.cfg.Node, "err", err)
		}
		wait = min(2*wait, c.cfg.MaxBackoff)
	}
}

// jitter spreads d by ±20 %, so signers that lost a shared node do not
// dial it in step.
func jitter(d time.Duration) time.Duration {
	return d + time.Duration((rand.Float64()*0.4-0.2)*float64(d))
}

// current is the working connection, or why there is none.
func (c *Client) current() (*conn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil {
		if errors.Is(c.lastErr, ErrUnavailable) {
			return nil, c.lastErr
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrUnavailable, c.cfg.Node, c.lastErr)
	}
	return c.conn, nil
}

// call sends req on the current connection within the call timeout and
// returns the answer as T; name labels the rpc error metric.
func call[T appmessage.Message](ctx context.Context, c *Client, name string, req appmessage.Message) (T, error) {
	var zero T
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	if err := ctx.Err(); err != nil { // before touching the connection, which abandoning a call drops
		c.cfg.Metrics.RPCError(name)
		return zero, fmt.Errorf("%w: %s: %w", ErrUnavailable, name, err)
	}
	select {
	case c.slot <- struct{}{}:
	case <-ctx.Done():
		c.cfg.Metrics.RPCError(name)
		return zero, fmt.Errorf("%w: %s: waiting for the connection: %w", ErrUnavailable, name, ctx.Err())
	}
	defer func() { <-c.slot }()
	cn, err := c.current()
	if err != nil {
		c.cfg.Metrics.RPCError(name)
		return zero, fmt.Errorf("%s: %w", name, err)
	}
	t, err := ask[T](ctx, cn, req)
	if err != nil {
		c.cfg.Metrics.RPCError(name)
		return zero, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// nodeError turns a call's error answer into a NodeError, counted.
func (c *Client) nodeError(name string, e *appmessage.RPCError) error {
	if e == nil {
		return nil
	}
	c.cfg.Metrics.RPCError(name)
	return &NodeError{Call: name, Message: e.Message}
}

// blockDAGInfo reads the DAG's state and reports its virtual DAA score.
func (c *Client) blockDAGInfo(ctx context.Context) (*appmessage.GetBlockDAGInfoResponseMessage, error) {
	const name = "get_block_dag_info"
	r, err := call[*appmessage.GetBlockDAGInfoResponseMessage](ctx, c, name, appmessage.NewGetBlockDAGInfoRequestMessage())
	if err != nil {
		return nil, err
	}
	if err := c.nodeError(name, r.Error); err != nil {
		return nil, err
	}
	c.cfg.Metrics.VirtualDAAScore(r.VirtualDAAScore)
	return r, nil
}
