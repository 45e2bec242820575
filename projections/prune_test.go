package projections_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/projections"
)

// testPrune: after a version switch, Prune lists the retired version's
// tables without touching them, then drops exactly those (and the
// version's checkpoints), marks the version dropped, and leaves every
// live table and digest as it was; a version whose tables were not
// recorded (retired by an older binary) is still found by name.
func testPrune(t *testing.T, e env) {
	lg := e.newLog(t)
	st, _ := e.newStore(t)
	ctx := ctxT(t)
	appendEv(t, lg, t0, detected(ref(1), 10), detected(ref(2), 20))
	catchUp(t, newRunner(t, lg, st, append(builtins(), depositCount{1})))
	r := newRunner(t, lg, st, append(builtins(), depositCount{2}))
	if s := catchUp(t, r); len(s.Switched) != 1 {
		t.Fatalf("switched %v", s.Switched)
	}
	want := []projections.Retired{{Projection: "deposit_count", Version: 1, Tables: []string{"deposit_count_v1"}}}
	got, err := r.Prune(ctx, false)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("dry run: %+v, %v; want %+v", got, err, want)
	}
	if n := count(t, st, "deposit_count_v1"); n != 1 {
		t.Fatalf("the dry run touched the retired table: %d rows", n)
	}
	// As an older binary left it: the tables it created are not recorded.
	execAll(t, st, `DELETE FROM projection_tables WHERE projection = 'deposit_count' AND version = 1`)
	if got, err := r.Prune(ctx, false); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("dry run without recorded tables: %+v, %v", got, err)
	}

	before := digests(t, r)
	if got, err := r.Prune(ctx, true); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("prune: %+v, %v", got, err)
	}
	tx, err := st.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT count(*) FROM deposit_count_v1`); err == nil {
		t.Error("deposit_count_v1 still exists")
	}
	tx.Rollback()
	tx, _ = st.Begin(ctx)
	states, _ := projections.Versions(ctx, tx)
	cp, err := projections.StoredCheckpoint(ctx, tx, "deposit_count", 1)
	tx.Rollback()
	if err != nil || len(cp) != 0 {
		t.Fatalf("checkpoints of the dropped version: %v, %v", cp, err)
	}
	if !hasState(states, "deposit_count", 1, projections.StateDropped) || !hasState(states, "deposit_count", 2, projections.StateLive) {
		t.Fatalf("states after prune: %+v", states)
	}
	if after := digests(t, r); !reflect.DeepEqual(after, before) {
		t.Fatalf("prune changed live digests:\n%v\n%v", before, after)
	}
	if got, err := r.Prune(ctx, true); err != nil || len(got) != 0 {
		t.Fatalf("second prune: %+v, %v", got, err)
	}
	// The live versions go on folding; a fresh runner plans around the
	// dropped version.
	appendEv(t, lg, t0.Add(time.Hour), detected(ref(3), 30))
	catchUp(t, newRunner(t, lg, st, append(builtins(), depositCount{2})))
	var n int64
	query(t, st, "SELECT n FROM deposit_count_v2", nil, &n)
	if n != 3 {
		t.Fatalf("v2 after prune counted %d", n)
	}
}

// execAll runs statements in one store transaction.
func execAll(t *testing.T, st projections.Store, qs ...string) {
	t.Helper()
	tx, err := st.Begin(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, q := range qs {
		if _, err := tx.Exec(ctxT(t), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}
