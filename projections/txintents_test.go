package projections_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/adapters/sqlstore/pgtest"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/projections/synth"
	"github.com/bridgelog/bridgelog/topics"
)

// applyOnly is a projection without its session: the runner calls Apply
// for every event, one at a time, through SQL.
type applyOnly struct{ p projections.Projection }

func (a applyOnly) Name() string                { return a.p.Name() }
func (a applyOnly) Version() int                { return a.p.Version() }
func (a applyOnly) Topics() []string            { return a.p.Topics() }
func (a applyOnly) Tables() []projections.Table { return a.p.Tables() }
func (a applyOnly) KeepsNothingPastBatch()      {}
func (a applyOnly) Apply(ctx context.Context, tx projections.Tx, ev *projections.Event) error {
	return a.p.Apply(ctx, tx, ev)
}

// TestTxIntentsFold: tx_intents folded event by event through SQL, in
// sessions through SQLite's engine and PostgreSQL, and loaded from zero in
// bulk (half of the log, then the rest through the built table) has the
// same rows, digest for digest: one per intent, settled by its outcome,
// and one of its own for an outcome without an intent.
func TestTxIntentsFold(t *testing.T) {
	lg := embeddedLog(t)
	ctx := ctxT(t)
	st, err := synth.Generate(ctx, lg, synth.Config{Events: 4000, Seed: 7, InFlight: 60, AppendBatch: 100, RelayEvents: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A decision taken without a send, and a send that is still open.
	lone := domain.TxOutcome{Purpose: domain.PurposeMint, Subject: ref(1).DepositID(), Status: domain.TxReverted, Reason: "would revert"}
	open := domain.TxIntent{Purpose: domain.PurposeClaim, Subject: "claim:338:x:y", ChainID: 338, Nonce: 9, TxHash: domain.Hash32{0x0e}, Attempt: 1}
	appendEv(t, lg, t0.Add(time.Hour), lone, open)

	ps := func(p projections.Projection) []projections.Projection { return []projections.Projection{p} }
	small := []projections.Option{fastRebuild, projections.WithReadChunk(30), projections.WithBatchSize(50), projections.WithCommitEvery(300)}
	defer projections.SetMaxHeldRows(5)()

	ref, _ := sqliteStore(t)
	refRun := newRunner(t, lg, ref, ps(applyOnly{projections.TxIntents{}}), small...)
	catchUp(t, refRun)
	want := digests(t, refRun)["tx_intents"]

	var intents, outcomes int
	tx, err := ref.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM tx_intents_v2 WHERE intent_json <> ''`).Scan(&intents); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM tx_intents_v2 WHERE settled_at IS NOT NULL`).Scan(&outcomes); err != nil {
		t.Fatal(err)
	}
	var status, reason string
	if err := tx.QueryRow(ctx, `SELECT status, reason FROM tx_intents_v2 WHERE subject = ? AND tx_hash = ?`,
		lone.Subject, domain.Hash32{}.Hex()).Scan(&status, &reason); err != nil || status != string(domain.TxReverted) || reason != "would revert" {
		t.Fatalf("the outcome without an intent: %q %q %v", status, reason, err)
	}
	if err := tx.QueryRow(ctx, `SELECT status FROM tx_intents_v2 WHERE subject = ?`, open.Subject).Scan(&status); err != nil || status != projections.TxOpen {
		t.Fatalf("the open intent: %q %v", status, err)
	}
	tx.Rollback()
	if intents < st.Deposits/2 || outcomes < intents/2 {
		t.Fatalf("%d intents, %d settled rows for %d deposits and %d withdrawals", intents, outcomes, st.Deposits, st.Withdrawals)
	}

	check := func(name string, run *projections.Runner) {
		t.Helper()
		if got := digests(t, run)["tx_intents"]; got != want {
			t.Errorf("%s: digest %s, folded event by event %s", name, got, want)
		}
	}
	engine, _ := sqliteStore(t)
	engineRun := newRunner(t, lg, engine, ps(projections.TxIntents{}), small...)
	catchUp(t, engineRun)
	check("sessions through SQLite", engineRun)

	pg := postgresStore(pgtest.Start(t))
	pgStore, _ := pg(t)
	pgRun := newRunner(t, lg, pgStore, ps(projections.TxIntents{}), small...)
	catchUp(t, pgRun)
	check("sessions through PostgreSQL", pgRun)

	half := map[string][]int64{}
	for _, topic := range []string{topics.TopicBridge, topics.TopicClaims} {
		ends, err := lg.EndOffsets(ctx, topic)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ends {
			half[topic] = append(half[topic], e/2)
		}
	}
	bulk, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "bulk.db"), sqlstore.WithBulkLoad())
	if err != nil {
		t.Fatal(err)
	}
	defer bulk.Close()
	lines := &logLines{}
	first := newRunner(t, lg, bulk, ps(projections.TxIntents{}), append(small, projections.WithStopAt(half), projections.WithLogger(slog.New(lines)))...)
	catchUp(t, first)
	if !slices.Contains(lines.msgs, "projection tables written with their indexes tx_intents") {
		t.Fatalf("tx_intents did not load through the bulk loader: %q", lines.msgs)
	}
	rest := newRunner(t, lg, bulk, ps(projections.TxIntents{}), small...)
	catchUp(t, rest)
	check("half loaded in bulk, the rest through the built table", rest)
	integrityOK(t, bulk)
}

// txIntentsV1 is tx_intents as version 1 folded it (its Apply verbatim,
// under the name given): the oracle version 2's rows must equal, but for
// the id, and what a store upgraded to version 2 starts from.
type txIntentsV1 struct{ name string }

func (p txIntentsV1) Name() string         { return p.name }
func (txIntentsV1) Version() int           { return 1 }
func (txIntentsV1) Topics() []string       { return projections.TxIntents{}.Topics() }
func (txIntentsV1) KeepsNothingPastBatch() {}
func (p txIntentsV1) table() string        { return projections.Versioned(p.name, 1) }
func (p txIntentsV1) Tables() []projections.Table {
	t := projections.TxIntents{}.Tables()[0]
	t.Name, t.Columns, t.PrimaryKey, t.Indexes = p.table(), t.Columns[1:], []string{"subject", "tx_hash"}, nil
	return []projections.Table{t}
}

func (p txIntentsV1) Apply(ctx context.Context, tx projections.Tx, ev *projections.Event) error {
	at := projections.FormatTime(ev.Envelope.RecordedAt)
	switch e := ev.Body.(type) {
	case *domain.TxIntent:
		raw, err := json.Marshal(e)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO `+p.table()+` (subject, tx_hash, purpose, chain_id, sender, nonce, attempt, intent_json,
			status, reason, gas_used, block_number, sent_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '', 0, 0, ?)
			ON CONFLICT (subject, tx_hash) DO NOTHING`,
			e.Subject, e.TxHash.Hex(), string(e.Purpose), int64(e.ChainID), e.From.Hex(), int64(e.Nonce), e.Attempt,
			string(raw), projections.TxOpen, at)
		return err
	case *domain.TxOutcome:
		_, err := tx.Exec(ctx, `INSERT INTO `+p.table()+` (subject, tx_hash, purpose, chain_id, sender, nonce, attempt, intent_json,
			status, reason, gas_used, block_number, sent_at, settled_at) VALUES (?, ?, ?, 0, '', ?, 0, '', ?, ?, ?, ?, ?, ?)
			ON CONFLICT (subject, tx_hash) DO UPDATE SET status = excluded.status, reason = excluded.reason,
			gas_used = excluded.gas_used, block_number = excluded.block_number, settled_at = excluded.settled_at`,
			e.Subject, e.TxHash.Hex(), string(e.Purpose), int64(e.Nonce), string(e.Status), e.Reason, int64(e.GasUsed),
			int64(e.BlockNumber), at, at)
		return err
	}
	return nil
}

// TestTxIntentsV2RowsAreV1s: version 2, loaded in bulk, holds exactly
// version 1's rows (every column but the new id), intents re-sent as
// replacements and outcomes without intents included.
func TestTxIntentsV2RowsAreV1s(t *testing.T) {
	lg := embeddedLog(t)
	ctx := ctxT(t)
	if _, err := synth.Generate(ctx, lg, synth.Config{Events: 3000, Seed: 9, InFlight: 50, AppendBatch: 100, RelayEvents: true}, nil); err != nil {
		t.Fatal(err)
	}
	subject := ref(2).DepositID()
	appendEv(t, lg, t0,
		domain.TxIntent{Purpose: domain.PurposeMint, Subject: subject, ChainID: 338, Nonce: 4, TxHash: domain.Hash32{0xa1}, Attempt: 1},
		domain.TxIntent{Purpose: domain.PurposeMint, Subject: subject, ChainID: 338, Nonce: 4, TxHash: domain.Hash32{0xa2}, Attempt: 2},
		domain.TxOutcome{Purpose: domain.PurposeMint, Subject: subject, TxHash: domain.Hash32{0xa1}, Nonce: 4, Status: domain.TxReplaced},
		domain.TxOutcome{Purpose: domain.PurposeMint, Subject: subject, TxHash: domain.Hash32{0xa2}, Nonce: 4, Status: domain.TxSucceeded, GasUsed: 61000, BlockNumber: 77},
		domain.TxOutcome{Purpose: domain.PurposeClaim, Subject: "claim:338:z", Status: domain.TxDryRun, Reason: "dry run"})
	path := filepath.Join(t.TempDir(), "bulk.db")
	st, err := sqlstore.OpenSQLite(ctx, path, sqlstore.WithBulkLoad())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	catchUp(t, newRunner(t, lg, st, []projections.Projection{projections.TxIntents{}, txIntentsV1{"tx_intents_oracle"}}, projections.WithBatchSize(40)))
	v2, v1 := txIntentRows(t, st, "tx_intents_v2"), txIntentRows(t, st, "tx_intents_oracle_v1")
	if len(v1) < 300 || !slices.Equal(v1, v2) {
		t.Fatalf("version 2 has %d rows, version 1 %d; first difference: %s", len(v2), len(v1), firstDiff(v1, v2))
	}
}

// txIntentRows lists table's rows, every column but an id, in key order.
func txIntentRows(t *testing.T, st projections.Store, table string) []string {
	t.Helper()
	ctx := ctxT(t)
	cols := projections.TxIntents{}.Tables()[0].ColumnNames()[1:]
	tx, err := st.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	rs, err := tx.Query(ctx, `SELECT `+strings.Join(cols, ", ")+` FROM `+table+` ORDER BY subject, tx_hash`)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(vals...))
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTxIntentsUpgrade: a store whose tx_intents is version 1 (as the
// previous binary left it) builds version 2 beside it on the next
// catch-up, switches to it with the same rows, retires version 1, and the
// relay's reads answer from version 2.
func TestTxIntentsUpgrade(t *testing.T) {
	lg := embeddedLog(t)
	ctx := ctxT(t)
	if _, err := synth.Generate(ctx, lg, synth.Config{Events: 2000, Seed: 13, InFlight: 40, AppendBatch: 100, RelayEvents: true, BatchLeaves: 32}, nil); err != nil {
		t.Fatal(err)
	}
	open := domain.TxIntent{Purpose: domain.PurposeClaim, Subject: "claim:338:open", ChainID: 338, Nonce: 3, TxHash: domain.Hash32{0x0f}, Attempt: 1}
	appendEv(t, lg, t0, open)
	st, _ := sqliteStore(t)
	catchUp(t, newRunner(t, lg, st, []projections.Projection{txIntentsV1{"tx_intents"}}))
	old := txIntentRows(t, st, "tx_intents_v1")

	run := newRunner(t, lg, st, []projections.Projection{projections.TxIntents{}})
	if s := catchUp(t, run); s.Applied["tx_intents@v2"] == 0 {
		t.Fatalf("version 2 was not built: %+v", s)
	}
	tx, err := st.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := projections.Versions(ctx, tx)
	tx.Rollback()
	if err != nil {
		t.Fatal(err)
	}
	if !hasState(vs, "tx_intents", 2, projections.StateLive) || !hasState(vs, "tx_intents", 1, projections.StateRetired) {
		t.Fatalf("versions after the upgrade: %+v", vs)
	}
	if got := txIntentRows(t, st, "tx_intents_v2"); len(old) < 300 || !slices.Equal(got, old) {
		t.Fatalf("version 2 has %d rows, version 1 had %d; first difference: %s", len(got), len(old), firstDiff(old, got))
	}
	intents, err := projections.BridgeReader{Store: st}.OpenIntents(ctx, open.Subject)
	if err != nil || len(intents) != 1 || intents[0].TxHash != open.TxHash {
		t.Fatalf("open intents read after the upgrade: %+v %v", intents, err)
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("v1 %q, v2 %q", a[i], b[i])
		}
	}
	return "(one is longer)"
}
