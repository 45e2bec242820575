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
// projection runner uses: the rows a 1,000,000-event rebuild writes
// (1,000,000 processed_events-shaped rows, 333,333 deposit-shaped ones),
// inserted in rowid order with a commit per 50,000 events, and their
// indexes kept up during the load or built after it. It bounds what any
// rebuild into SQLite can reach (see BENCHMARKS.md).
//
//	go test -run '^$' -bench BenchmarkSQLiteCeiling -benchtime 1x ./adapters/sqlstore/
func BenchmarkSQLiteCeiling(b *testing.B) {
	const rows = 1_000_000
	key := func(i int) string { return fmt.Sprintf("338:0x%064x:%d", uint64(i)*0x9E3779B97F4A7C15, i%5) }
	hash := func(i int) int64 { return int64(uint64(i) * 0xBF58476D1CE4E5B9) }
	content := strings.Repeat("ab", 32)
	processedRow := func(i int, d []any) []any {
		return append(d, i, "bridge", i%8, i, key(i), hash(i), "deposit.detected",
			"0190d6a2-8c6b-7b9e-a1c2-0123456789ab", content, "2026-01-01T00:00:00.123456789Z", 0)
	}
	hex64 := func(i int, salt uint64) string { return fmt.Sprintf("0x%064x", uint64(i)*0x9E3779B97F4A7C15^salt) }
	addr := func(i int) string { return fmt.Sprintf("0x%040x", uint64(i)*0xBF58476D1CE4E5B9) }
	at := "2026-01-01T00:00:00.123456789Z"
	depositRow := func(j int, d []any) []any {
		return append(d, j, j%8, j, 338, hex64(j, 1), j%4, "MINTED", addr(1), addr(j), "1000000000000000000",
			addr(j+1), 1_000_000+j, hex64(j, 2), j, at, at, 1_000_005+j, at, hex64(j, 3), 52_000,
			1_000_007+j, nil, nil, nil)
	}
	type step struct {
		metric string // reported in ms
		ddl    []string
	}
	cases := []struct {
		name   string
		cols   []string
		rows   int
		commit int      // rows per transaction
		during []string // indexes kept up to date during the load
		after  []step   // built once the rows are in
		row    func(i int, dst []any) []any
		// inEngine, when set, makes SQLite generate the rows itself
		// (INSERT … SELECT over a range ?1..?2): no Go-side arguments at
		// all, the engine's own floor for the same rows.
		inEngine string
	}{
		{name: "2cols", cols: []string{"id", "k"}, rows: rows, commit: 50_000,
			row: func(i int, d []any) []any { return append(d, i, key(i)) }},
		{name: "processed_events_11cols", cols: processedLike, rows: rows, commit: 50_000, row: processedRow,
			after: []step{{"int_index_build_ms", []string{`CREATE INDEX t_h ON t (h)`}},
				{"text_unique_index_build_ms", []string{`CREATE UNIQUE INDEX t_k ON t (k)`}}}},
		{name: "processed_events_11cols_in_engine", cols: processedLike, rows: rows, commit: 50_000, inEngine: processedInEngine,
			after: []step{{"int_index_build_ms", []string{`CREATE INDEX t_h ON t (h)`}}}},
		{name: "processed_events_11cols_indexed_during_load", cols: processedLike, rows: rows, commit: 50_000,
			row: processedRow, during: []string{`CREATE INDEX t_h ON t (h)`}},
		// One deposit row per three events of a 1M-event log, written once,
		// then the seed's unique key and the status index.
		{name: "deposits_24cols_333k_rows", cols: depositLike, rows: rows / 3, commit: 50_000 / 3, row: depositRow,
			after: []step{{"index_build_ms", []string{`CREATE UNIQUE INDEX t_k ON t (tx_hash, log_index, chain_id)`,
				`CREATE INDEX t_s ON t (status)`}}}},
		{name: "deposits_24cols_333k_rows_in_engine", cols: depositLike, rows: rows / 3, commit: 50_000 / 3, inEngine: depositsInEngine,
			after: []step{{"index_build_ms", []string{`CREATE UNIQUE INDEX t_k ON t (tx_hash, log_index, chain_id)`,
				`CREATE INDEX t_s ON t (status)`}}}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for n := 0; n < b.N; n++ {
				ctx := context.Background()
				st, err := sqlstore.OpenSQLite(ctx, filepath.Join(b.TempDir(), "ceiling.db"))
				if err != nil {
					b.Fatal(err)
				}
				exec(b, st, append([]string{`CREATE TABLE t (id INTEGER PRIMARY KEY, ` + strings.Join(c.cols[1:], ", ") + `)`}, c.during...)...)
				start := time.Now()
				bulk := projections.Bulk{Table: "t", Columns: c.cols}
				args := make([]any, 0, c.commit*len(c.cols))
				for i := 0; i < c.rows; i += c.commit {
					tx, err := st.Begin(ctx)
					if err != nil {
						b.Fatal(err)
					}
					if c.inEngine != "" {
						_, err = tx.Exec(ctx, `WITH RECURSIVE n(i) AS (SELECT ?1 UNION ALL SELECT i+1 FROM n WHERE i < ?2) `+c.inEngine,
							i, min(i+c.commit, c.rows)-1)
					} else {
						args = args[:0]
						for j := i; j < min(i+c.commit, c.rows); j++ {
							args = c.row(j, args)
						}
						err = bulk.Exec(ctx, tx, args)
					}
					if err != nil {
						b.Fatal(err)
					}
					if err := tx.Commit(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(c.rows)/time.Since(start).Seconds(), "rows/s")
				for _, s := range c.after {
					t := time.Now()
					exec(b, st, s.ddl...)
					b.ReportMetric(time.Since(t).Seconds()*1000, s.metric)
				}
				if len(c.after) > 0 {
					b.ReportMetric(time.Since(start).Seconds()*1000, "total_ms")
				}
				st.Close()
			}
		})
	}
}

// The in-engine rows have the shapes and sizes of processedRow and
// depositRow above (printf builds the same keys and hashes).
const (
	processedInEngine = `INSERT INTO t SELECT i, 'bridge', i%8, i, printf('338:0x%064x:%d', i*40503, i%5), i*2654435761,
		'deposit.detected', '0190d6a2-8c6b-7b9e-a1c2-0123456789ab', '` + "abababababababababababababababababababababababababababababababab" + `',
		'2026-01-01T00:00:00.123456789Z', 0 FROM n`
	depositsInEngine = `INSERT INTO t SELECT i, i%8, i, 338, printf('0x%064x', i*40503), i%4, 'MINTED',
		printf('0x%040x', 1), printf('0x%040x', i*2654435761), '1000000000000000000', printf('0x%040x', i+1), 1000000+i,
		printf('0x%064x', i*40503+2), i, '2026-01-01T00:00:00.123456789Z', '2026-01-01T00:00:00.123456789Z', 1000005+i,
		'2026-01-01T00:00:00.123456789Z', printf('0x%064x', i*40503+3), 52000, 1000007+i, NULL, NULL, NULL FROM n`
)

var processedLike = []string{"id", "topic", "part", "off", "k", "h", "typ", "eid", "content", "at", "dups"}

var depositLike = []string{"id", "first_partition", "first_offset", "chain_id", "tx_hash", "log_index",
	"status", "contract", "depositor", "amount", "recipient", "block_number", "block_hash", "onchain_id",
	"detected_at", "confirmed_at", "confirmed_block", "minted_at", "mint_tx_hash", "gas_used",
	"mint_block_number", "failed_at", "error_reason", "reorged_block_hash"}

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
