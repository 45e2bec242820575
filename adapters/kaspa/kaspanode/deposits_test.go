package kaspanode_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/kaspanet/kaspad/util"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode/kaspadtest"
	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// depositFee covers the storage mass of a spend with a small output.
const depositFee = 200_000

// TestKaspaIndexerOnKaspad: on a kaspad simnet node, KAS sent to a
// registered deposit address is detected in the chain block that
// accepted it (read from the virtual chain's accepted transactions) and
// confirmed at the depth; KAS sent to the group's own address and a
// deposit under the minimum are refused at the depth; the payer's change
// and the miner's coinbases are no deposits.
func TestKaspaIndexerOnKaspad(t *testing.T) {
	payer := kaspadtest.NewKey(t)
	n := kaspadtest.StartNode(t, kaspadtest.Options{MineTo: payer.Address})
	coins := n.WaitMature(t, payer.Address, 2)

	var keys [][]byte
	for range 3 {
		_, pub, err := kaspa.NewKeyPair()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, pub)
	}
	d, err := kaspa.NewDeposits(kaspadtest.Network, keys, 2)
	if err != nil {
		t.Fatal(err)
	}
	alice := domain.Address{0xa1, 0x1c, 0xe0}
	const depth, minSompi = 20, 20_000_000
	rig := newDepositRig(t, n.RPC, d, alice, handlers.KaspaIndexerConfig{Depth: depth, MinSompi: minSompi})
	c, aliceAddr := rig.client, rig.addr

	send := func(in twophase.UTXO, pays ...kaspadtest.Payment) domain.Hash32 {
		var out uint64
		for _, p := range pays {
			out += p.Amount
		}
		pays = append(pays, kaspadtest.Payment{To: payer.Address, Amount: in.Amount - out - depositFee})
		tx := payer.Spend(t, []twophase.UTXO{in}, pays...)
		if err := c.Submit(context.Background(), kaspadtest.Serialize(t, tx)); err != nil {
			t.Fatalf("submit: %v", err)
		}
		return domain.Hash32(kaspadtest.TxID(tx))
	}
	big := send(coins[0], kaspadtest.Payment{To: aliceAddr, Amount: 100_000_000}, kaspadtest.Payment{To: d.GroupAddress(), Amount: 50_000_000})
	small := send(coins[1], kaspadtest.Payment{To: aliceAddr, Amount: 15_000_000})

	want := map[string]string{
		domain.KaspaOutpoint{TxID: big, Index: 0}.Key():   projections.KaspaDepositConfirmed,
		domain.KaspaOutpoint{TxID: big, Index: 1}.Key():   projections.KaspaDepositRefused,
		domain.KaspaOutpoint{TxID: small, Index: 0}.Key(): projections.KaspaDepositRefused,
	}
	eventually(t, 2*time.Minute, func() error {
		if err := rig.follow(); err != nil {
			return err
		}
		rows, err := rig.reader.KaspaDepositList(context.Background(), 10)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, r := range rows {
			got[r.Outpoint] = r.Status
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("deposits %v, want %v", got, want)
		}
		return nil
	})
	for _, e := range rig.events(t, domain.TypeKaspaDepositDetected) {
		det := e.(*domain.KaspaDepositDetected)
		if det.Outpoint.TxID == big && det.Outpoint.Index == 0 && (det.Amount != 100_000_000 || det.Recipient != alice || det.Refusal != "") {
			t.Fatalf("alice's deposit detected as %+v", det)
		}
		if det.Outpoint.TxID == big && det.Outpoint.Index == 1 && (det.Recipient != (domain.Address{}) || det.Refusal != domain.KaspaRefusalNoRecipient) {
			t.Fatalf("the group's own address: %+v", det)
		}
		if det.Outpoint.TxID == small && det.Refusal != domain.KaspaRefusalBelowMinimum {
			t.Fatalf("the small deposit: %+v", det)
		}
		if det.DAAScore == 0 || det.Block.IsZero() {
			t.Fatalf("detected without its accepting block: %+v", det)
		}
	}
	for _, e := range rig.events(t, domain.TypeKaspaDepositConfirmed) {
		if cf := e.(*domain.KaspaDepositConfirmed); cf.VirtualDAAScore < depth {
			t.Fatalf("confirmed at virtual DAA score %d", cf.VirtualDAAScore)
		}
	}
}

var quiet = slog.New(slog.DiscardHandler)

// depositRig is a relay's Kaspa indexer of a group's deposits through a
// node, on a log and store of its own, watching one recipient's address.
type depositRig struct {
	log    topics.Log
	runner *projections.Runner
	reader projections.BridgeReader
	client *kaspanode.Client
	ix     *handlers.KaspaIndexer
	addr   util.Address // the recipient's deposit address
	t      testing.TB
}

func newDepositRig(t testing.TB, node string, d *kaspa.Deposits, recipient domain.Address, cfg handlers.KaspaIndexerConfig) *depositRig {
	ctx := context.Background()
	dir := t.TempDir()
	lg, err := embeddedlog.Open(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(dir, "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	run, err := projections.NewRunner(ctx, lg, st, []projections.Projection{projections.KaspaDeposits{}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := kaspanode.New(ctx, kaspanode.Config{Node: node, Network: kaspadtest.Network, Address: d.GroupAddress(),
		WithoutUTXOIndex: true, MinBackoff: 50 * time.Millisecond, MaxBackoff: 500 * time.Millisecond, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	addr, _, err := d.Address(recipient)
	if err != nil {
		t.Fatal(err)
	}
	app := &handlers.Appender{Log: lg, Catalog: topics.DefaultCatalog()}
	if _, err := app.Append(ctx, handlers.Cause{}, domain.KaspaDepositAddressIssued{Network: kaspadtest.Network,
		GroupAddress: d.GroupAddress().String(), Recipient: recipient, Address: addr.String()}); err != nil {
		t.Fatal(err)
	}
	ix := &handlers.KaspaIndexer{Chain: kaspanode.DepositSource{Client: c, Deposits: d}, Reader: projections.BridgeReader{Store: st},
		Appender: app, Config: cfg, Logger: quiet}
	return &depositRig{log: lg, runner: run, reader: projections.BridgeReader{Store: st}, client: c, ix: ix, addr: addr, t: t}
}

// follow polls, the projection caught up before each poll, until the
// indexer has read the chain to its tip.
func (r *depositRig) follow() error {
	for {
		r.catchUp()
		res, err := r.ix.Poll(context.Background())
		if err != nil {
			return err
		}
		if r.catchUp(); !res.More {
			return nil
		}
	}
}

func (r *depositRig) catchUp() {
	r.t.Helper()
	if _, err := r.runner.CatchUp(context.Background()); err != nil {
		r.t.Fatal(err)
	}
}

// events decodes every event of type typ on the bridge topic.
func (r *depositRig) events(t *testing.T, typ string) []domain.Event {
	t.Helper()
	ctx := context.Background()
	ends, err := r.log.EndOffsets(ctx, topics.TopicBridge)
	if err != nil {
		t.Fatal(err)
	}
	var out []domain.Event
	for p, end := range ends {
		recs, err := r.log.Read(ctx, topics.TopicBridge, int32(p), 0, int(end))
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs {
			env, err := topics.DecodeEnvelope(rec.Value)
			if err != nil {
				t.Fatal(err)
			}
			if env.Type == typ {
				ev, err := projections.DecodeBody(&env)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, ev)
			}
		}
	}
	return out
}

// TestKaspaIndexerReorgOnKaspad: a node cut off from its peer accepts a
// deposit in blocks of its own; when it rejoins the heavier chain of its
// peer, the virtual chain drops those blocks and the indexer reorgs the
// sighting (the node restarts to rejoin: the client dials it again). If a
// chain block of the new chain merges those blocks and accepts the deposit
// again, it is detected there, never in the dropped block again.
func TestKaspaIndexerReorgOnKaspad(t *testing.T) {
	payer := kaspadtest.NewKey(t)
	leader := kaspadtest.StartNode(t, kaspadtest.Options{MineTo: payer.Address})
	coins := leader.WaitMature(t, payer.Address, 1)
	node := kaspadtest.StartNode(t, kaspadtest.Options{MineTo: kaspadtest.NewKey(t).Address, Peer: leader, BlocksPerSecond: 5})
	node.WaitDAAScore(t, leader.VirtualDAAScore(t), time.Minute)
	node.Isolate()

	_, pub, err := kaspa.NewKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	d, err := kaspa.NewDeposits(kaspadtest.Network, [][]byte{pub}, 1)
	if err != nil {
		t.Fatal(err)
	}
	alice := domain.Address{0xa1}
	rig := newDepositRig(t, node.RPC, d, alice, handlers.KaspaIndexerConfig{Depth: 1000, MinSompi: 1})
	c, aliceAddr, poll := rig.client, rig.addr, rig.follow

	tx := payer.Spend(t, coins[:1], kaspadtest.Payment{To: aliceAddr, Amount: 100_000_000},
		kaspadtest.Payment{To: payer.Address, Amount: coins[0].Amount - 100_000_000 - depositFee})
	if err := c.Submit(context.Background(), kaspadtest.Serialize(t, tx)); err != nil {
		t.Fatalf("submit: %v", err)
	}
	op := domain.KaspaOutpoint{TxID: domain.Hash32(kaspadtest.TxID(tx))}
	var first domain.Hash32
	eventually(t, time.Minute, func() error {
		node.MineBlocks(t, 1)
		if err := poll(); err != nil {
			return err
		}
		for _, e := range rig.events(t, domain.TypeKaspaDepositDetected) {
			first = e.(*domain.KaspaDepositDetected).Block
			return nil
		}
		return fmt.Errorf("deposit %s not detected", op.Key())
	})

	leader.WaitDAAScore(t, node.VirtualDAAScore(t)+200, 2*time.Minute)
	node.Rejoin()
	eventually(t, 2*time.Minute, func() error {
		if err := poll(); err != nil {
			return err
		}
		reorged := rig.events(t, domain.TypeKaspaDepositReorged)
		if len(reorged) == 0 {
			return fmt.Errorf("no reorg of the sighting in %s", first.Hex())
		}
		if r := reorged[0].(*domain.KaspaDepositReorged); r.Outpoint != op || r.Block != first {
			t.Fatalf("reorged %+v, want %s in %s", r, op.Key(), first.Hex())
		}
		return nil
	})
	for _, e := range rig.events(t, domain.TypeKaspaDepositDetected)[1:] {
		if e.(*domain.KaspaDepositDetected).Block == first {
			t.Fatalf("detected again in the dropped block %s", first.Hex())
		}
	}
	t.Logf("sightings after the reorganisation: %d", len(rig.events(t, domain.TypeKaspaDepositDetected)))
}

// BenchmarkKaspaIndexerCatchUp: the relay's Kaspa indexer reads a simnet
// chain of about 600 DAA score from genesis through kaspad (its chain
// changes, each chain block and its merge set with their transactions)
// and records nothing (no deposit): chain blocks read per second.
func BenchmarkKaspaIndexerCatchUp(b *testing.B) {
	miner := kaspadtest.NewKey(b)
	n := kaspadtest.StartNode(b, kaspadtest.Options{MineTo: miner.Address})
	n.WaitDAAScore(b, 600, 2*time.Minute)
	n.StopMiner()
	_, pub, err := kaspa.NewKeyPair()
	if err != nil {
		b.Fatal(err)
	}
	d, err := kaspa.NewDeposits(kaspadtest.Network, [][]byte{pub}, 1)
	if err != nil {
		b.Fatal(err)
	}
	blocks := 0
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		rig := newDepositRig(b, n.RPC, d, domain.Address{0xa1}, handlers.KaspaIndexerConfig{Depth: 300, MinSompi: 1})
		rig.catchUp()
		b.StartTimer()
		for {
			res, err := rig.ix.Poll(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			blocks += res.Added
			if rig.catchUp(); !res.More {
				break
			}
		}
	}
	b.ReportMetric(float64(blocks)/b.Elapsed().Seconds(), "chainblocks/s")
	b.ReportMetric(float64(blocks)/float64(b.N), "chainblocks/op")
}
