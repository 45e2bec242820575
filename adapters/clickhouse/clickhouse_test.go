package clickhouse_test

import (
	"context"
	"runtime"
	"testing"

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
