package sqlstore

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestRebind(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT a FROM t WHERE b = ? AND c = ?`:               `SELECT a FROM t WHERE b = $1 AND c = $2`,
		`INSERT INTO t (a, b) VALUES ('?', ?)`:                `INSERT INTO t (a, b) VALUES ('?', $1)`,
		`SELECT "we?ird" FROM t WHERE x = ? OR y = 'it''s ?'`: `SELECT "we?ird" FROM t WHERE x = $1 OR y = 'it''s ?'`,
		`SELECT 1`: `SELECT 1`,
	} {
		if got := rebind(in); got != want {
			t.Errorf("rebind(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsDDL(t *testing.T) {
	for q, want := range map[string]bool{
		"CREATE TABLE IF NOT EXISTS x (a TEXT)": true,
		"  drop table x":                        true,
		"DROP INDEX x_a":                        true,
		"INSERT INTO x VALUES (1)":              false,
		"UPDATE x SET a = 1":                    false,
	} {
		if isDDL(q) != want {
			t.Errorf("isDDL(%q) = %v", q, !want)
		}
	}
}

// The bulk load's appender logs through warnings: its info lines repeat
// the runner's, its warnings (direct writes refused) must get through.
func TestWarningsHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(warnings{slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})})
	log.Info("commit line")
	log.With("path", "p.db").Info("another info line")
	log.Warn("first warning")
	log.With("path", "p.db").WithGroup("g").Error("an error", "k", 1)
	got := buf.String()
	if strings.Contains(got, "info line") || strings.Contains(got, "commit line") {
		t.Fatalf("info lines passed: %q", got)
	}
	if !strings.Contains(got, "first warning") || !strings.Contains(got, `msg="an error" path=p.db g.k=1`) {
		t.Fatalf("warnings or errors missing: %q", got)
	}
}
