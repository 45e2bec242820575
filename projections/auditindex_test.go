package projections_test

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/sqlstore/pgtest"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// TestAuditKeys: audit_keys files every event under every key AuditKeysOf
// gives it, with its kind: a withdrawal's transaction hash (in any case,
// without 0x) finds its chain events, a hash that is a leaf of two events
// and the claim transaction of a third finds all three, each labelled;
// a duplicate and a conflict are filed as well; a key nothing has finds
// nothing. A rewind folds nothing twice and a
// rebuild gives the same table. On SQLite and PostgreSQL.
func TestAuditKeys(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { auditKeys(t, sqliteStore) })
	t.Run("postgres", func(t *testing.T) { auditKeys(t, postgresStore(pgtest.Start(t))) })
}

func auditKeys(t *testing.T, newStore func(t *testing.T) (projections.Store, func() projections.Store)) {
	ctx := ctxT(t)
	lg := embeddedLog(t)
	st, _ := newStore(t)
	run := newRunner(t, lg, st, []projections.Projection{projections.AuditKeys{}})
	rd := projections.BridgeReader{Store: st}

	w := ref(7)
	settle := domain.Settlement{ChainID: 338, Distributor: domain.Address{0xd1}}
	leaf := domain.Hash32{0x1e, 0xaf}
	evs := []domain.Event{
		domain.WithdrawalDetected{Ref: w, Contract: domain.Address{9}, BlockNumber: 100, BlockHash: domain.Hash32{0xbb},
			OnChainID: 1, Withdrawer: domain.Address{1}, Amount: domain.AmountFromUint64(5), Recipient: domain.Address{2}},
		domain.WithdrawalBatched{Ref: w, SequenceID: settle.SequenceID(), BatchID: 3, Leaf: leaf},
		domain.BatchCreated{Settlement: settle, BatchID: 3, Root: domain.Hash32{0x50},
			Leaves: []domain.BatchLeaf{{Withdrawal: w, Leaf: leaf}, {Leaf: domain.Hash32{0x1e, 0xb0}}}},
		domain.WithdrawalExecuted{Ref: w, BatchID: 3, ClaimTxHash: leaf}, // a claim whose hash is also a leaf: ambiguous on purpose
		detected(ref(8), 10),
		detected(ref(8), 10), // a duplicate
		detected(ref(8), 11), // a conflict
	}
	pos := appendEv(t, lg, t0, evs...)
	if s := catchUp(t, run); s.Duplicates != 1 || s.Conflicts != 1 {
		t.Fatalf("caught up %+v, want a duplicate and a conflict", s)
	}
	if got := auditHits(t, rd, ref(8).DepositID()); len(got) != 3 {
		t.Fatalf("the deposit, its duplicate and its conflict: %v", got)
	}

	// Every key of every event (duplicates and conflicts too: they are
	// on the log) finds it, with its kind, and nothing else is filed.
	want := map[string][]projections.AuditHit{}
	rows := 0
	for i, env := range envelopes(t, lg, pos) {
		body, err := projections.DecodeBody(&env)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range projections.AuditKeysOf(&env, body) {
			want[k.Key] = append(want[k.Key], projections.AuditHit{Position: pos[i], Kind: k.Kind})
			rows++
		}
	}
	if n := count(t, st, "audit_keys_v2"); n != rows {
		t.Fatalf("audit_keys_v2 has %d rows, want %d", n, rows)
	}
	for key, hits := range want {
		if got := auditHits(t, rd, key); !slices.Equal(got, sortedHits(hits)) {
			t.Fatalf("key %s: %v, want %v", key, got, hits)
		}
	}

	tx := strings.ToUpper(strings.TrimPrefix(w.TxHash.Hex(), "0x"))
	if got := auditHits(t, rd, tx); !slices.Equal(got, []projections.AuditHit{
		{pos[0], projections.KeyEVMTx}, {pos[1], projections.KeyEVMTx}, {pos[3], projections.KeyEVMTx}}) {
		t.Fatalf("withdrawal transaction %s: %v", tx, got)
	}
	if got := auditHits(t, rd, leaf.Hex()); !slices.Equal(got, []projections.AuditHit{
		{pos[2], projections.KeyLeaf}, {pos[1], projections.KeyLeaf}, {pos[3], projections.KeyEVMTx}}) {
		t.Fatalf("leaf and claim %s: %v", leaf.Hex(), got)
	}
	// The batch key is also BatchCreated's source key.
	if got := auditHits(t, rd, projections.BatchKey(settle.SequenceID(), 3)); !slices.Equal(got, []projections.AuditHit{
		{pos[2], projections.KeyBatch}, {pos[2], projections.KeySource}, {pos[1], projections.KeyBatch}}) {
		t.Fatalf("batch: %v", got)
	}
	if got := auditHits(t, rd, "withdrawal:nothing"); len(got) != 0 {
		t.Fatalf("an unknown key found %v", got)
	}

	before := digests(t, run)["audit_keys"]
	if err := run.Rewind(ctx, 0, "audit_keys"); err != nil {
		t.Fatal(err)
	}
	if s := catchUp(t, run); s.Applied["audit_keys@v2"] != int64(len(evs)) {
		t.Fatalf("rewind folded %v, want %d events again", s.Applied, len(evs))
	}
	if n := count(t, st, "audit_keys_v2"); n != rows || digests(t, run)["audit_keys"] != before {
		t.Fatalf("after a rewind: %d rows (want %d), digest changed: %v", n, rows, digests(t, run)["audit_keys"] != before)
	}
	if err := run.Rebuild(ctx, "audit_keys"); err != nil {
		t.Fatal(err)
	}
	catchUp(t, run)
	if got := digests(t, run)["audit_keys"]; got != before {
		t.Fatalf("rebuild digest %s, want %s", got, before)
	}
}

func auditHits(t *testing.T, rd projections.BridgeReader, key string) []projections.AuditHit {
	t.Helper()
	hits, err := rd.AuditHits(ctxT(t), key)
	if err != nil {
		t.Fatal(err)
	}
	return sortedHits(hits)
}

// sortedHits orders hits by position, then kind: AuditHits gives no
// order a caller may rely on.
func sortedHits(hits []projections.AuditHit) []projections.AuditHit {
	slices.SortFunc(hits, func(a, b projections.AuditHit) int {
		return cmp.Or(cmp.Compare(a.Position.Topic, b.Position.Topic), cmp.Compare(a.Position.Partition, b.Position.Partition),
			cmp.Compare(a.Position.Offset, b.Position.Offset), cmp.Compare(a.Kind, b.Kind))
	})
	return hits
}

// envelopes reads back the envelopes at pos.
func envelopes(t *testing.T, lg topics.Log, pos []topics.Position) []topics.Envelope {
	t.Helper()
	var out []topics.Envelope
	for _, p := range pos {
		recs, err := lg.Read(ctxT(t), p.Topic, p.Partition, p.Offset, 1)
		if err != nil || len(recs) != 1 {
			t.Fatalf("read %v: %v (%d records)", p, err, len(recs))
		}
		env, err := topics.DecodeEnvelope(recs[0].Value)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, env)
	}
	return out
}

// TestAuditKeysManyEvents: a batch of more events than one insert takes
// (the session writes a few hundred events' keys at a time) files every
// key of every event, each event's keys under its own position.
func TestAuditKeysManyEvents(t *testing.T) {
	lg := embeddedLog(t)
	st, _ := sqliteStore(t)
	run := newRunner(t, lg, st, []projections.Projection{projections.AuditKeys{}})
	var evs []domain.Event
	for i := range 1300 {
		evs = append(evs, detected(ref(byte(i)), uint64(i)))
	}
	pos := appendEv(t, lg, t0, evs...)
	if s := catchUp(t, run); s.Records != int64(len(evs)) {
		t.Fatalf("caught up %+v, want %d records", s, len(evs))
	}
	rows := 0
	rd := projections.BridgeReader{Store: st}
	for i, env := range envelopes(t, lg, pos) {
		body, err := projections.DecodeBody(&env)
		if err != nil {
			t.Fatal(err)
		}
		keys := projections.AuditKeysOf(&env, body)
		rows += len(keys)
		if i%97 == 0 { // a sample: each hit list holds this event's position
			if hits := auditHits(t, rd, keys[len(keys)-1].Key); !slices.ContainsFunc(hits, func(h projections.AuditHit) bool { return h.Position == pos[i] }) {
				t.Fatalf("event %d's key %s: %v, without %v", i, keys[len(keys)-1].Key, hits, pos[i])
			}
		}
	}
	if n := count(t, st, "audit_keys_v2"); n != rows {
		t.Fatalf("audit_keys_v2 has %d rows, want %d", n, rows)
	}
}
