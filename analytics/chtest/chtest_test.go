package chtest

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestServer checks what analytics tests rely on: databases from NewDB are
// separate, named-column batches load, and ReplacingMergeTree FINAL
// collapses duplicate keys on this 18.16 server.
func TestServer(t *testing.T) {
	srv := Start(t)
	dsnA, dsnB := srv.NewDB(t), srv.NewDB(t)
	if dsnA == dsnB {
		t.Fatalf("NewDB returned the same DSN twice: %s", dsnA)
	}

	Exec(t, dsnA, `CREATE TABLE t (
		day Date,
		id String,
		amount UInt64,
		ver UInt32
	) ENGINE = ReplacingMergeTree(ver)
	PARTITION BY toYYYYMM(day)
	ORDER BY id`)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn := Open(t, dsnA)
	day1 := time.Date(2024, 1, 15, 0, 0, 0, 0, time.UTC)
	day2 := time.Date(2024, 2, 3, 0, 0, 0, 0, time.UTC)
	rows := []struct {
		day    time.Time
		id     string
		amount uint64
		ver    uint32
	}{
		{day1, "a", 10, 1},
		{day1, "b", 20, 1},
		{day1, "a", 11, 2}, // replaces a@1
		{day2, "c", 30, 1},
		{day2, "c", 30, 1}, // exact duplicate
		{day2, "d", 40, 1},
	}
	// Two batches so the duplicates land in separate parts, which only FINAL
	// (not the insert) merges.
	for _, part := range [][]int{{0, 1, 3}, {2, 4, 5}} {
		batch, err := conn.PrepareBatch(ctx, "INSERT INTO t (day, id, amount, ver)")
		if err != nil {
			t.Fatalf("prepare batch: %v", err)
		}
		for _, i := range part {
			r := rows[i]
			if err := batch.Append(r.day, r.id, r.amount, r.ver); err != nil {
				t.Fatalf("append row %d: %v", i, err)
			}
		}
		if err := batch.Send(); err != nil {
			t.Fatalf("send batch: %v", err)
		}
	}

	var raw, final uint64
	if err := conn.QueryRow(ctx, "SELECT count() FROM t").Scan(&raw); err != nil {
		t.Fatalf("count: %v", err)
	}
	if err := conn.QueryRow(ctx, "SELECT count() FROM t FINAL").Scan(&final); err != nil {
		t.Fatalf("count final: %v", err)
	}
	if raw != uint64(len(rows)) {
		t.Errorf("count() = %d, want %d rows as inserted", raw, len(rows))
	}
	if final != 4 {
		t.Errorf("count() FINAL = %d, want 4 distinct ids", final)
	}
	var amountA uint64
	if err := conn.QueryRow(ctx, "SELECT amount FROM t FINAL WHERE id = 'a'").Scan(&amountA); err != nil {
		t.Fatalf("select a: %v", err)
	}
	if amountA != 11 {
		t.Errorf("a's amount FINAL = %d, want 11 (highest ver)", amountA)
	}
	var partitions uint64
	if err := conn.QueryRow(ctx, "SELECT uniqExact(partition) FROM system.parts WHERE database = currentDatabase() AND table = 't' AND active").Scan(&partitions); err != nil {
		t.Fatalf("partitions: %v", err)
	}
	if partitions != 2 {
		t.Errorf("partitions = %d, want 2 (January, February)", partitions)
	}

	// The other database does not see t.
	connB := Open(t, dsnB)
	var tables uint64
	if err := connB.QueryRow(ctx, "SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 't'").Scan(&tables); err != nil {
		t.Fatalf("tables in B: %v", err)
	}
	if tables != 0 {
		t.Errorf("database B lists table t")
	}
	err := connB.QueryRow(ctx, "SELECT count() FROM t").Scan(&raw)
	if err == nil || !strings.Contains(err.Error(), "doesn't exist") {
		t.Errorf("SELECT from t in database B: err = %v, want table doesn't exist", err)
	}
}
