package sqlstore

import "testing"

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
