package handlers

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

const kasNet = "kaspa-simnet"

// virtualChain is a Kaspa node's virtual selected parent chain: blocks
// with a selected parent each, the chain the path from its tip down. A
// reorganisation moves the tip to another branch; ChangeFrom then lists
// the blocks removed since a cursor on the old branch, as the node does.
type virtualChain struct {
	mu     sync.Mutex
	parent map[domain.Hash32]domain.Hash32
	blocks map[domain.Hash32]domain.KaspaChainBlock
	tip    domain.Hash32
	next   byte
	fail   error // the next ChangeFrom fails with it
}

var kasGenesis = domain.Hash32{0x99}

func newVirtualChain() *virtualChain {
	c := &virtualChain{parent: map[domain.Hash32]domain.Hash32{}, blocks: map[domain.Hash32]domain.KaspaChainBlock{}, tip: kasGenesis}
	c.blocks[kasGenesis] = domain.KaspaChainBlock{Hash: kasGenesis}
	return c
}

// mine adds a block on parent accepting txs and makes it the tip.
func (c *virtualChain) mine(parent domain.Hash32, txs ...domain.KaspaTx) domain.Hash32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	h := domain.Hash32{0xb0, c.next}
	c.parent[h] = parent
	c.blocks[h] = domain.KaspaChainBlock{Hash: h, DAAScore: c.blocks[parent].DAAScore + 10, Accepted: txs}
	c.tip = h
	return h
}

func (c *virtualChain) onChain() map[domain.Hash32]bool {
	on := map[domain.Hash32]bool{}
	for h := c.tip; ; h = c.parent[h] {
		on[h] = true
		if h == kasGenesis {
			return on
		}
	}
}

func (c *virtualChain) Network() string                              { return kasNet }
func (c *virtualChain) Start(context.Context) (domain.Hash32, error) { return kasGenesis, nil }
func (c *virtualChain) GroupScript() []byte                          { return []byte("group") }
func (c *virtualChain) DepositScript(r domain.Address) ([]byte, error) {
	return []byte("deposit:" + r.Hex()), nil
}
func (c *virtualChain) VirtualDAAScore(context.Context) (uint64, error) { return c.virtual(), nil }

func (c *virtualChain) virtual() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.blocks[c.tip].DAAScore + 1
}

func (c *virtualChain) ChangeFrom(_ context.Context, cursor domain.Hash32) (domain.KaspaChainChange, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.fail; err != nil {
		c.fail = nil
		return domain.KaspaChainChange{}, false, err
	}
	on := c.onChain()
	var out domain.KaspaChainChange
	fork := cursor
	for ; !on[fork]; fork = c.parent[fork] {
		out.Removed = append(out.Removed, fork)
	}
	for h := c.tip; h != fork; h = c.parent[h] {
		out.Added = append(out.Added, c.blocks[h])
	}
	slices.Reverse(out.Added)
	return out, false, nil
}

type kaspaRig struct {
	t      *testing.T
	chain  *virtualChain
	log    topics.Log
	runner *projections.Runner
	reader projections.BridgeReader
	ix     *KaspaIndexer
}

func newKaspaRig(t *testing.T) *kaspaRig {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	lg, err := embeddedlog.Open(filepath.Join(dir, "log"), embeddedlog.WithLogger(quietLogger))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(dir, "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	run, err := projections.NewRunner(ctx, lg, st, []projections.Projection{projections.KaspaDeposits{}}, projections.WithLogger(quietLogger))
	if err != nil {
		t.Fatal(err)
	}
	r := &kaspaRig{t: t, chain: newVirtualChain(), log: lg, runner: run, reader: projections.BridgeReader{Store: st}}
	r.ix = r.indexer()
	return r
}

// indexer is a fresh indexer over the rig's log and store (a restart).
func (r *kaspaRig) indexer() *KaspaIndexer {
	return &KaspaIndexer{Chain: r.chain, Reader: r.reader, Appender: &Appender{Log: r.log, Catalog: topics.DefaultCatalog()},
		Config: KaspaIndexerConfig{Depth: 30, MinSompi: 1000}, Logger: quietLogger}
}

func (r *kaspaRig) catchUp() {
	r.t.Helper()
	if _, err := r.runner.CatchUp(context.Background()); err != nil {
		r.t.Fatal(err)
	}
}

func (r *kaspaRig) poll() KaspaScanResult {
	r.t.Helper()
	r.catchUp()
	res, err := r.ix.Poll(context.Background())
	if err != nil {
		r.t.Fatal(err)
	}
	r.catchUp()
	return res
}

func (r *kaspaRig) issue(recipient domain.Address) {
	r.t.Helper()
	ev := domain.KaspaDepositAddressIssued{Network: kasNet, GroupAddress: "kaspasim:group", Recipient: recipient, Address: "kaspasim:" + recipient.Hex()}
	if _, err := r.ix.Appender.Append(context.Background(), Cause{}, ev); err != nil {
		r.t.Fatal(err)
	}
}

// status is each deposit's status by outpoint.
func (r *kaspaRig) status() map[string]string {
	r.t.Helper()
	rows, err := r.reader.KaspaDepositList(context.Background(), 100)
	if err != nil {
		r.t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range rows {
		out[d.Outpoint] = d.Status + "@" + d.Block[:6]
	}
	return out
}

// records counts the log's records of every topic.
func (r *kaspaRig) records() int64 {
	r.t.Helper()
	var n int64
	for _, topic := range []string{topics.TopicBridge, topics.TopicChain} {
		ends, err := r.log.EndOffsets(context.Background(), topic)
		if err != nil {
			r.t.Fatal(err)
		}
		for _, e := range ends {
			n += e
		}
	}
	return n
}

func depositTx(id byte, recipient domain.Address, sompi uint64) domain.KaspaTx {
	return domain.KaspaTx{ID: domain.Hash32{id}, Outputs: []domain.KaspaTxOutput{
		{Amount: 77, Script: []byte("someone else")},
		{Amount: sompi, Script: []byte("deposit:" + recipient.Hex())}}}
}

func kasOutpoint(id byte) string {
	return domain.KaspaOutpoint{TxID: domain.Hash32{id}, Index: 1}.Key()
}

// TestKaspaIndexerDepth: a deposit to an issued address is detected in
// the chain block that accepted it and confirmed once that block is the
// depth under the virtual; one to an address never issued is not seen;
// the cursor follows the chain, and polls of an unchanged chain, or of a
// restarted indexer, append nothing.
func TestKaspaIndexerDepth(t *testing.T) {
	r := newKaspaRig(t)
	alice, bob := domain.Address{0xa1}, domain.Address{0xb0}
	r.issue(alice)
	b1 := r.chain.mine(kasGenesis, depositTx(1, alice, 5000), depositTx(2, bob, 5000))
	if res := r.poll(); res.Added != 1 || res.Events != 1 {
		t.Fatalf("first poll %+v, want one block and one detection", res)
	}
	if s := r.status(); len(s) != 1 || s[kasOutpoint(1)] != "DETECTED@0xb001" {
		t.Fatalf("deposits %v, want alice's detected in b1", s)
	}
	tip := b1
	for range 2 { // virtual at b1+21: not 30 deep yet
		tip = r.chain.mine(tip)
	}
	r.poll()
	if s := r.status(); s[kasOutpoint(1)] != "DETECTED@0xb001" {
		t.Fatalf("confirmed short of the depth: %v", s)
	}
	tip = r.chain.mine(tip) // virtual at b1+31
	r.poll()
	if s := r.status(); s[kasOutpoint(1)] != "CONFIRMED@0xb001" {
		t.Fatalf("deposits %v, want alice's confirmed", s)
	}
	if _, cur, _, _ := r.reader.KaspaCursor(context.Background(), kasNet); cur != tip {
		t.Fatalf("cursor %s, want the tip %s", cur.Hex(), tip.Hex())
	}
	before := r.records()
	r.poll()
	r.ix = r.indexer()
	r.poll()
	if after := r.records(); after != before {
		t.Fatalf("polls of an unchanged chain appended %d records", after-before)
	}
}

// TestKaspaIndexerReorg: when the chain block that accepted a deposit
// leaves the virtual chain the deposit is reorged, and detected again in
// the block of the new branch that accepts it, confirmed at the depth
// there; a reorganisation after the verdict is recorded as such.
func TestKaspaIndexerReorg(t *testing.T) {
	r := newKaspaRig(t)
	alice := domain.Address{0xa1}
	r.issue(alice)
	b1 := r.chain.mine(kasGenesis, depositTx(1, alice, 5000))
	r.chain.mine(b1)
	r.poll()
	// A heavier branch from genesis; its second block accepts the deposit.
	c1 := r.chain.mine(kasGenesis)
	c2 := r.chain.mine(c1, depositTx(1, alice, 5000))
	res := r.poll()
	if res.Removed != 2 || res.Added != 2 {
		t.Fatalf("poll %+v, want 2 blocks removed and 2 added", res)
	}
	if s := r.status(); s[kasOutpoint(1)] != fmt.Sprintf("DETECTED@%s", c2.Hex()[:6]) {
		t.Fatalf("deposits %v, want detected again in c2", s)
	}
	reorged := r.events(domain.TypeKaspaDepositReorged)
	if len(reorged) != 1 || reorged[0].(*domain.KaspaDepositReorged).Block != b1 || reorged[0].(*domain.KaspaDepositReorged).WasFinal {
		t.Fatalf("reorged events %+v, want the sighting in b1", reorged)
	}
	tip := c2
	for range 3 {
		tip = r.chain.mine(tip)
	}
	r.poll()
	if s := r.status(); s[kasOutpoint(1)] != fmt.Sprintf("CONFIRMED@%s", c2.Hex()[:6]) {
		t.Fatalf("deposits %v, want confirmed in c2", s)
	}
	// A deeper reorganisation takes c2 away after the confirmation.
	d1 := r.chain.mine(c1)
	for range 4 {
		d1 = r.chain.mine(d1)
	}
	r.poll()
	reorged = r.events(domain.TypeKaspaDepositReorged)
	if len(reorged) != 2 || !reorged[1].(*domain.KaspaDepositReorged).WasFinal {
		t.Fatalf("reorged events %+v, want the confirmed sighting reorged, flagged final", reorged)
	}
	if s := r.status(); s[kasOutpoint(1)] != fmt.Sprintf("REORGED@%s", c2.Hex()[:6]) {
		t.Fatalf("deposits %v", s)
	}
}

// TestKaspaIndexerRefusedAndDuplicates: KAS sent to the group's own
// address (no recipient) and a deposit under the minimum are recorded and
// refused at the depth, never confirmed; coinbases and the group's own
// spends are not deposits. A crash after the events and before the
// cursor moved reads the change again, and appends none of them twice.
func TestKaspaIndexerRefusedAndDuplicates(t *testing.T) {
	r := newKaspaRig(t)
	alice := domain.Address{0xa1}
	r.issue(alice)
	toGroup := domain.KaspaTx{ID: domain.Hash32{3}, Outputs: []domain.KaspaTxOutput{{Amount: 9000, Script: []byte("group")}}}
	change := domain.KaspaTx{ID: domain.Hash32{4}, GroupSpend: true, Outputs: []domain.KaspaTxOutput{{Amount: 9000, Script: []byte("group")}}}
	coinbase := domain.KaspaTx{ID: domain.Hash32{5}, Coinbase: true, Outputs: []domain.KaspaTxOutput{{Amount: 9000, Script: []byte("group")}}}
	b1 := r.chain.mine(kasGenesis, depositTx(1, alice, 5000), depositTx(2, alice, 999), toGroup, change, coinbase)
	tip := b1
	for range 3 {
		tip = r.chain.mine(tip)
	}
	r.catchUp()
	r.ix.Appender.Log = failingChainLog{Log: r.log} // the cursor's append fails: a crash before it
	if _, err := r.ix.Poll(context.Background()); !errors.Is(err, errCrash) {
		t.Fatalf("poll: %v, want the crash", err)
	}
	r.catchUp()
	r.ix = r.indexer()
	r.poll()
	want := map[string]string{kasOutpoint(1): "CONFIRMED@0xb001", kasOutpoint(2): "REFUSED@0xb001",
		domain.KaspaOutpoint{TxID: domain.Hash32{3}}.Key(): "REFUSED@0xb001"}
	if s := r.status(); len(s) != 3 || s[kasOutpoint(1)] != want[kasOutpoint(1)] || s[kasOutpoint(2)] != want[kasOutpoint(2)] ||
		s[domain.KaspaOutpoint{TxID: domain.Hash32{3}}.Key()] != want[domain.KaspaOutpoint{TxID: domain.Hash32{3}}.Key()] {
		t.Fatalf("deposits %v, want %v", s, want)
	}
	refusals := map[string]int{}
	for _, ev := range r.events(domain.TypeKaspaDepositRefused) {
		refusals[ev.(*domain.KaspaDepositRefused).Reason]++
	}
	// Every fact once on the log: the poll after the crash knew what was
	// recorded of the change.
	if refusals[domain.KaspaRefusalBelowMinimum] != 1 || refusals[domain.KaspaRefusalNoRecipient] != 1 {
		t.Fatalf("refusals %v", refusals)
	}
	keys := map[string]int{}
	for _, e := range events(t, r.log, topics.TopicBridge) {
		keys[e.SourceKey]++
	}
	if len(keys) != 6 {
		t.Fatalf("%d source keys, want 3 detections and 3 verdicts: %v", len(keys), keys)
	}
	for k, n := range keys {
		if n != 1 {
			t.Fatalf("%s appended %d times", k, n)
		}
	}
	// Caught up, a further poll appends nothing.
	before := r.records()
	r.poll()
	if r.records() != before {
		t.Fatal("a poll after the recovery appended records")
	}
}

// TestKaspaIndexerNodeDown: a node error fails the poll and moves nothing.
func TestKaspaIndexerNodeDown(t *testing.T) {
	r := newKaspaRig(t)
	r.chain.mine(kasGenesis)
	r.chain.fail = errors.New("node down")
	before := r.records()
	r.catchUp()
	if _, err := r.ix.Poll(context.Background()); err == nil {
		t.Fatal("poll succeeded with the node down")
	}
	if r.records() != before {
		t.Fatal("a failed poll appended records")
	}
	if res := r.poll(); res.Added != 1 {
		t.Fatalf("poll after the node came back: %+v", res)
	}
}

var errCrash = errors.New("crash")

// failingChainLog fails every append to the chain topic.
type failingChainLog struct{ topics.Log }

func (l failingChainLog) Append(ctx context.Context, topic string, msgs ...topics.Message) ([]topics.Position, error) {
	if topic == topics.TopicChain {
		return nil, errCrash
	}
	return l.Log.Append(ctx, topic, msgs...)
}

func (r *kaspaRig) events(typ string) []domain.Event {
	r.t.Helper()
	var out []domain.Event
	for _, env := range events(r.t, r.log, topics.TopicBridge) {
		if env.Type != typ {
			continue
		}
		ev, err := projections.DecodeBody(&env)
		if err != nil {
			r.t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}
