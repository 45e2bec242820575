package signingsource

import (
	"context"
	"log/slog"
	"math/big"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/adapters/evm/evmchain"
	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/handlers/signing"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

var quietLogger = slog.New(slog.DiscardHandler)

// What a signer process wires in.
var (
	_ Requester = (*signing.Signer)(nil)
	_ Chain     = (*evmchain.Client)(nil)
	_ Reader    = projections.BridgeReader{}
)

// Kaspa addresses the tests burn toward (the source does not check them:
// the signer's protocol does).
const (
	alice = "kaspa:qz0s9f7vzg5dpm0q4s2fgcse3ghv5uahyd0ldcfl5vy3ar7t6q05lnwr2mtkx"
	bob   = "kaspa:qq2avkpyqgx9e7e4pw8m8z6pqmdfhqwh6q6jqsfx4vu4rlmkqn8sk2mg0u9rk"
)

// sompi is one sompi in the token's base units.
var sompi = big.NewInt(domain.WeiPerSompi)

func tokens(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }

// request is one call of the recording requester.
type request struct {
	ev  twophase.SigningEvent
	via string
}

// recorder is a Requester that records every call.
type recorder struct {
	mu    sync.Mutex
	calls []request
}

func (r *recorder) Request(_ context.Context, ev twophase.SigningEvent, via string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, request{ev, via})
	return nil
}

func (r *recorder) taken() []request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]request(nil), r.calls...)
}

// nonces lists the nonces handed over, in order.
func (r *recorder) nonces() []uint64 {
	var out []uint64
	for _, c := range r.taken() {
		out = append(out, c.ev.Nonce)
	}
	return out
}

// counts records the source's own counters as series/reason.
type counts struct {
	NopMetrics
	mu sync.Mutex
	n  map[string]int
}

func (c *counts) count(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[key]++
}
func (c *counts) SourceHanded(string)  { c.count("signing_source_handed_total/") }
func (c *counts) SourceInvalid(string) { c.count("signing_source_invalid_total/") }
func (c *counts) RequestRefused(_, reason string) {
	c.count("signing_requests_refused_total/" + reason)
}

func (c *counts) get(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[key]
}

type projectorFunc func(context.Context) error

func (f projectorFunc) CatchUp(ctx context.Context) error { return f(ctx) }

// rig is a dev chain with the bridge deployed and a holder of tokens, and
// a signer's source of burns on it: its own log, store and node client.
type rig struct {
	t       *testing.T
	ctx     context.Context
	chain   *devchain.Chain
	users   devchain.Users
	client  *evmchain.Client
	bridge  devchain.Bridge
	token   domain.Address
	depth   uint64
	log     topics.Log
	app     *handlers.Appender
	reader  projections.BridgeReader
	runner  *projections.Runner
	req     *recorder
	metrics *counts
	src     *Source
}

// newRig starts the chain and the source; wrap, if set, stands between
// the source and its node.
func newRig(t *testing.T, depth uint64, wrap func(Chain) Chain) *rig {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	ch, err := devchain.Start(devchain.Config{BlockInterval: -1, Accounts: 3, Logger: quietLogger, Kaspa: contracts.KaspaBurnRules{Prefix: "kaspa"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ch.Close() })
	b, err := ch.Deploy(ctx, devchain.DevKey(0))
	if err != nil {
		t.Fatal(err)
	}
	cl, err := evmchain.Dial(ctx, evmchain.Config{URL: ch.URL(), ChainID: devchain.ChainID})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	r := &rig{t: t, ctx: ctx, chain: ch, users: devchain.Users{Backend: ch.Client(), Bridge: b}, client: cl, bridge: b,
		token: domain.Address(b.Token), depth: depth, req: &recorder{}, metrics: &counts{}}
	r.mint(tokens(100))

	lg, err := embeddedlog.Open(t.TempDir(), embeddedlog.WithLogger(quietLogger))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "signer.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	r.runner, err = projections.NewRunner(ctx, lg, st, projections.BurnSourceProjections(), projections.WithLogger(quietLogger))
	if err != nil {
		t.Fatal(err)
	}
	r.log, r.reader = lg, projections.BridgeReader{Store: st}
	r.app = &handlers.Appender{Log: lg, Catalog: topics.DefaultCatalog()}
	var chain Chain = cl
	if wrap != nil {
		chain = wrap(cl)
	}
	r.src = r.newSource(chain)
	return r
}

// newSource builds a source over the rig's log and store, as a signer
// process (re)started on them does; edit, if any, changes its config.
func (r *rig) newSource(chain Chain, edit ...func(*Config)) *Source {
	r.t.Helper()
	cfg := Config{Chain: chain, Decoder: evmchain.NewDecoder(devchain.ChainID, evmchain.Contracts{Token: r.token}),
		Contracts: []domain.Address{r.token}, Depth: r.depth, Appender: r.app, Reader: r.reader,
		Projector: projectorFunc(func(ctx context.Context) error { _, err := r.runner.CatchUp(ctx); return err }),
		Requester: r.req, Logger: quietLogger, Metrics: r.metrics}
	for _, e := range edit {
		e(&cfg)
	}
	src, err := New(cfg)
	if err != nil {
		r.t.Fatal(err)
	}
	return src
}

// mint gives dev account 1 amount tokens (dev account 0 is the relayer).
func (r *rig) mint(amount *big.Int) {
	r.t.Helper()
	tok := contracts.NewBridgeToken()
	auth := bind.NewKeyedTransactor(devchain.DevKey(0), big.NewInt(devchain.ChainID))
	auth.Context = r.ctx
	to := crypto.PubkeyToAddress(devchain.DevKey(1).PublicKey)
	tx, err := bind.Transact(tok.Instance(r.users.Backend, r.bridge.Token), auth, tok.PackMint(to, amount, common.Hash{1}))
	if err != nil {
		r.t.Fatal(contracts.DecodeRevert(err))
	}
	if _, err := r.chain.WaitMined(r.ctx, tx.Hash()); err != nil {
		r.t.Fatal(err)
	}
}

// burn burns amount tokens of dev account 1 toward a Kaspa address and
// returns its mined receipt.
func (r *rig) burn(amount *big.Int, recipient string) *types.Receipt {
	r.t.Helper()
	tx, err := r.users.BurnToKaspa(r.ctx, devchain.DevKey(1), amount, recipient)
	if err != nil {
		r.t.Fatal(err)
	}
	rc, err := r.chain.WaitMined(r.ctx, tx.Hash())
	if err != nil {
		r.t.Fatal(err)
	}
	return rc
}

// burnLog is the receipt's WithdrawalToKaspa log.
func burnLog(t *testing.T, rc *types.Receipt) *types.Log {
	t.Helper()
	tok := contracts.NewBridgeToken()
	for _, l := range rc.Logs {
		if _, err := tok.UnpackWithdrawalToKaspaEvent(l); err == nil {
			return l
		}
	}
	t.Fatalf("receipt of %s has no WithdrawalToKaspa", rc.TxHash)
	return nil
}

// expected is the signing event a burn's receipt makes.
func (r *rig) expected(rc *types.Receipt, nonce uint64, amount *big.Int, recipient string) twophase.SigningEvent {
	l := burnLog(r.t, rc)
	return twophase.SigningEvent{Stream: domain.BurnStream(devchain.ChainID, r.token), Nonce: nonce, Destination: recipient,
		Amount: new(big.Int).Quo(amount, sompi).Uint64(),
		Source: twophase.SourceRef{Chain: domain.EVMChain(devchain.ChainID), TxHash: twophase.Hash(rc.TxHash),
			LogIndex: uint32(l.Index), Block: rc.BlockNumber.Uint64()}}
}

// mine seals n empty blocks.
func (r *rig) mine(n int) {
	for range n {
		r.chain.Commit()
	}
}

// round runs one round of the source and fails the test on an error.
func (r *rig) round() {
	r.t.Helper()
	if err := r.src.Round(r.ctx); err != nil {
		r.t.Fatalf("round: %v", err)
	}
}

// events decodes every event of type typ on topic of the signer's log.
func (r *rig) events(topic, typ string) []domain.Event {
	r.t.Helper()
	ends, err := r.log.EndOffsets(r.ctx, topic)
	if err != nil {
		r.t.Fatal(err)
	}
	var out []domain.Event
	for p, end := range ends {
		recs, err := r.log.Read(r.ctx, topic, int32(p), 0, int(end))
		if err != nil {
			r.t.Fatal(err)
		}
		for _, rec := range recs {
			env, err := topics.DecodeEnvelope(rec.Value)
			if err != nil {
				r.t.Fatal(err)
			}
			if env.Type != typ {
				continue
			}
			ev, err := projections.DecodeBody(&env)
			if err != nil {
				r.t.Fatal(err)
			}
			out = append(out, ev)
		}
	}
	return out
}
