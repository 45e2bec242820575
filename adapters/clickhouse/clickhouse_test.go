package clickhouse_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/clickhouse"
	"github.com/bridgelog/bridgelog/analytics/chtest"
)

// An insert's connection must be fit for the next call. clickhouse-go's
// batch Send watches its context on a goroutine that may not have run when
// Send returns; cancelling the context then let it close the connection
// after it had gone back to the pool, and the next call failed with "use
// of closed network connection" (ClickHouse/clickhouse-go#2032). One
// processor makes that goroutine run late every time.
func TestInsertLeavesItsConnectionUsable(t *testing.T) {
	srv := chtest.Start(t)
	ctx := context.Background()
	wh, err := clickhouse.Open(ctx, srv.NewDB(t))
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	if err := wh.Exec(ctx, "CREATE TABLE n (v UInt64) ENGINE = Memory"); err != nil {
		t.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const rounds = 50
	for i := 1; i <= rounds; i++ {
		if err := wh.Insert(ctx, "n", []string{"v"}, [][]any{{uint64(i)}}); err != nil {
			t.Fatalf("insert %d: %v", i, err)
		}
		rows, err := wh.Query(ctx, "SELECT count() FROM n")
		if err != nil {
			t.Fatalf("query after insert %d: %v", i, err)
		}
		var n uint64
		for rows.Next() {
			if err := rows.Scan(&n); err != nil {
				t.Fatalf("scan after insert %d: %v", i, err)
			}
		}
		if err := rows.Close(); err != nil {
			t.Fatalf("rows after insert %d: %v", i, err)
		}
		if n != uint64(i) {
			t.Fatalf("after insert %d the table has %d rows", i, n)
		}
	}
}

// TestInsertColumns: a batch given column by column lands as rows; values
// that do not fit their columns are refused with the column named, and
// leave the warehouse usable.
func TestInsertColumns(t *testing.T) {
	srv := chtest.Start(t)
	ctx := context.Background()
	wh, err := clickhouse.Open(ctx, srv.NewDB(t))
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	if err := wh.Exec(ctx, "CREATE TABLE c (s String, n UInt64, at DateTime) ENGINE = Memory"); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	cols := []string{"s", "n", "at"}
	if err := wh.InsertColumns(ctx, "c", cols, []any{[]string{"a", "b"}, []uint64{1, 2}, []time.Time{at, at.Add(time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	if err := wh.InsertColumns(ctx, "c", cols, []any{[]string{"a"}, []uint64{1}}); err == nil || !strings.Contains(err.Error(), "3 columns, 2 slices") {
		t.Fatalf("two slices for three columns: %v", err)
	}
	if err := wh.InsertColumns(ctx, "c", cols, []any{[]bool{true}, []uint64{1}, []time.Time{at}}); err == nil || !strings.Contains(err.Error(), "column s") {
		t.Fatalf("bools for a String column: %v", err)
	}
	rows, err := wh.Query(ctx, "SELECT count(), sum(n), max(s), max(at) FROM c")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var n, sum uint64
	var s string
	var last time.Time
	if !rows.Next() {
		t.Fatal("no row")
	}
	if err := rows.Scan(&n, &sum, &s, &last); err != nil {
		t.Fatal(err)
	}
	if n != 2 || sum != 3 || s != "b" || !last.Equal(at.Add(time.Hour)) {
		t.Fatalf("table holds %d rows, sum %d, max %q, last %v; want 2, 3, \"b\", %v", n, sum, s, last, at.Add(time.Hour))
	}
}
