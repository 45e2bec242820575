package projections_test

import (
	"slices"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/sqlstore/pgtest"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
)

func hashOf(n uint64) domain.Hash32 { return domain.Hash32{0xcc, byte(n)} }

func hashesOf(from, to uint64) []domain.Hash32 {
	var out []domain.Hash32
	for n := from; n <= to; n++ {
		out = append(out, hashOf(n))
	}
	return out
}

func scanned(chain, from, to, window uint64, priorFrom uint64) domain.ChainScanned {
	e := domain.ChainScanned{ChainID: chain, From: from, To: to, ToHash: hashOf(to), Tip: to, Window: window}
	if priorFrom < to {
		e.PriorHashes = hashesOf(priorFrom, to-1)
	}
	return e
}

// TestChainCursorsKeepTheWindow: chain_blocks keeps the hashes of the
// scanned blocks within each scan's window below the cursor, per chain;
// a reorg's rewind and an operator's rescan drop the blocks above the new
// cursor, and the rewound cursor checks the fork point's hash. Scans
// recorded before scans carried hashes and a window give their last block
// each, kept for the old fixed rewind of 10. A replay in other batches
// gives the same tables. On SQLite and PostgreSQL.
func TestChainCursorsKeepTheWindow(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { chainCursorsKeepTheWindow(t, sqliteStore) })
	t.Run("postgres", func(t *testing.T) { chainCursorsKeepTheWindow(t, postgresStore(pgtest.Start(t))) })
}

func chainCursorsKeepTheWindow(t *testing.T, newStore func(t *testing.T) (projections.Store, func() projections.Store)) {
	ctx := ctxT(t)
	lg := embeddedLog(t)
	st, _ := newStore(t)
	run := newRunner(t, lg, st, []projections.Projection{projections.ChainCursors{}})
	rd := projections.BridgeReader{Store: st}
	kept := func(chain uint64) []uint64 {
		t.Helper()
		bs, err := rd.ScannedBlocks(ctx, chain)
		if err != nil {
			t.Fatal(err)
		}
		var out []uint64
		for _, b := range bs {
			if b.Hash != hashOf(b.Number) {
				t.Fatalf("block %d kept with hash %s", b.Number, b.Hash.Hex())
			}
			out = append(out, b.Number)
		}
		return out
	}
	steps := []struct {
		name   string
		evs    []domain.Event
		chain  uint64
		kept   []uint64
		cursor domain.Cursor
	}{
		{"old scans: their last blocks", []domain.Event{scanned(338, 1, 50, 0, 50), scanned(338, 51, 55, 0, 55)},
			338, []uint64{55, 50}, domain.Cursor{ScannedTo: 55, ToHash: hashOf(55), Tip: 55, Found: true}},
		{"a scan with a window of 4", []domain.Event{scanned(338, 56, 60, 4, 57)},
			338, []uint64{60, 59, 58, 57}, domain.Cursor{ScannedTo: 60, ToHash: hashOf(60), Tip: 60, Found: true}},
		{"one block at a time", []domain.Event{scanned(338, 61, 61, 4, 61), scanned(338, 62, 62, 4, 62), scanned(339, 1, 9, 4, 5)},
			338, []uint64{62, 61, 60, 59, 58}, domain.Cursor{ScannedTo: 62, ToHash: hashOf(62), Tip: 62, Found: true}},
		{"a reorg rewinds to its fork point", []domain.Event{domain.ChainReorged{ChainID: 338, Block: 62, OldHash: hashOf(62),
			NewHash: domain.Hash32{1}, RewindTo: 59, RewindHash: hashOf(59)}},
			338, []uint64{59, 58}, domain.Cursor{ScannedTo: 59, ToHash: hashOf(59), Tip: 62, Reorgs: 1, Found: true}},
		{"a rescan drops what it scans again", []domain.Event{domain.ChainRescanRequested{ChainID: 338, From: 59, RequestID: "r"}},
			338, []uint64{58}, domain.Cursor{ScannedTo: 58, Tip: 62, Reorgs: 1, Found: true}},
		{"other chains are apart", nil,
			339, []uint64{9, 8, 7, 6, 5}, domain.Cursor{ScannedTo: 9, ToHash: hashOf(9), Tip: 9, Found: true}},
		{"an old reorg without the fork's hash", []domain.Event{domain.ChainReorged{ChainID: 339, Block: 9, OldHash: hashOf(9),
			NewHash: domain.Hash32{2}, RewindTo: 6}},
			339, []uint64{6, 5}, domain.Cursor{ScannedTo: 6, Tip: 9, Reorgs: 1, Found: true}},
	}
	for _, s := range steps {
		appendEv(t, lg, t0, s.evs...)
		catchUp(t, run)
		if got := kept(s.chain); !slices.Equal(got, s.kept) {
			t.Fatalf("%s: kept blocks %v, want %v", s.name, got, s.kept)
		}
		c, err := rd.Cursor(ctx, s.chain)
		if err != nil || c != s.cursor {
			t.Fatalf("%s: cursor %+v (%v), want %+v", s.name, c, err, s.cursor)
		}
	}
	scratch, _ := sqliteStore(t)
	replay := newRunner(t, lg, scratch, []projections.Projection{projections.ChainCursors{}}, projections.WithBatchSize(2))
	catchUp(t, replay)
	if live, rebuilt := digests(t, run), digests(t, replay); live["chain_cursors"] == "" || live["chain_cursors"] != rebuilt["chain_cursors"] {
		t.Fatalf("digests: live %v, rebuilt %v", live, rebuilt)
	}
}
