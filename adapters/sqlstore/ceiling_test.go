package sqlstore_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/projections"
)

// BenchmarkSQLiteCeiling measures what SQLite itself allows on this
// machine, through the same store settings and multi-row statements the
// projection runner uses: 1,000,000 rows inserted in rowid order with a
// commit every 50,000, then a secondary index built over them. It bounds
// what any rebuild into SQLite can reach (see BENCHMARKS.md).
//
//	go test -run '^$' -bench BenchmarkSQLiteCeiling -benchtime 1x ./adapters/sqlstore/
func BenchmarkSQLiteCeiling(b *testing.B) {
	const rows = 1_000_000
	key := func(i int) string { return fmt.Sprintf("338:0x%064x:%d", uint64(i)*0x9E3779B97F4A7C15, i%5) }
	hash := func(i int) int64 { return int64(uint64(i) * 0xBF58476D1CE4E5B9) }
	content := strings.Repeat("ab", 32)
	cases := []struct {
		name  string
		cols  []string
		index string // built during the load when set
		row   func(i int, dst []any) []any
	}{
		{"2cols", []string{"id", "k"}, "", func(i int, d []any) []any { return append(d, i, key(i)) }},
		{"processed_events_11cols", processedLike, "", func(i int, d []any) []any {
			return append(d, i, "bridge", i%8, i, key(i), hash(i), "deposit.detected",
				"0190d6a2-8c6b-7b9e-a1c2-0123456789ab", content, "2026-01-01T00:00:00.123456789Z", 0)
		}},
		{"processed_events_11cols_indexed_during_load", processedLike, "h", func(i int, d []any) []any {
			return append(d, i, "bridge", i%8, i, key(i), hash(i), "deposit.detected",
				"0190d6a2-8c6b-7b9e-a1c2-0123456789ab", content, "2026-01-01T00:00:00.123456789Z", 0)
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for n := 0; n < b.N; n++ {
				ctx := context.Background()
				st, err := sqlstore.OpenSQLite(ctx, filepath.Join(b.TempDir(), "ceiling.db"))
				if err != nil {
					b.Fatal(err)
				}
				ddl := []string{`CREATE TABLE t (id INTEGER PRIMARY KEY, ` + strings.Join(c.cols[1:], ", ") + `)`}
				if c.index != "" {
					ddl = append(ddl, `CREATE INDEX t_`+c.index+` ON t (`+c.index+`)`)
				}
				exec(b, st, ddl...)
				start := time.Now()
				bulk := projections.Bulk{Table: "t", Columns: c.cols}
				args := make([]any, 0, 50_000*len(c.cols))
				for i := 0; i < rows; i += 50_000 {
					args = args[:0]
					for j := i; j < i+50_000; j++ {
						args = c.row(j, args)
					}
					tx, err := st.Begin(ctx)
					if err != nil {
						b.Fatal(err)
					}
					if err := bulk.Exec(ctx, tx, args); err != nil {
						b.Fatal(err)
					}
					if err := tx.Commit(); err != nil {
						b.Fatal(err)
					}
				}
				load := time.Since(start)
				b.ReportMetric(rows/load.Seconds(), "rows/s")
				if c.index == "" && len(c.cols) > 2 {
					start = time.Now()
					exec(b, st, `CREATE INDEX t_h ON t (h)`)
					b.ReportMetric(time.Since(start).Seconds()*1000, "int_index_build_ms")
					start = time.Now()
					exec(b, st, `CREATE UNIQUE INDEX t_k ON t (k)`)
					b.ReportMetric(time.Since(start).Seconds()*1000, "text_unique_index_build_ms")
				}
				st.Close()
			}
		})
	}
}

var processedLike = []string{"id", "topic", "part", "off", "k", "h", "typ", "eid", "content", "at", "dups"}

func exec(b *testing.B, st projections.Store, qs ...string) {
	b.Helper()
	tx, err := st.Begin(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	for _, q := range qs {
		if _, err := tx.Exec(context.Background(), q); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}
