// Package pgtest starts a throwaway PostgreSQL cluster for tests, through
// deploy/postgres/throwaway.sh, the same script CI and developers use. It
// fails the test loudly when the cluster cannot start: a test that needs
// PostgreSQL never silently skips.
package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/bridgelog/bridgelog/deploy/throwaway"
)

// Cluster is a running throwaway cluster.
type Cluster struct {
	DSN string // the postgres database, as superuser
	n   atomic.Int64
}

// Start starts a cluster that lives until the test (and its subtests)
// end.
func Start(t testing.TB) *Cluster {
	t.Helper()
	s := throwaway.StartOnFreePorts(t, "postgres", "install the server: apt-get install -y postgresql", 1)
	return &Cluster{DSN: s.DSN}
}

// NewDB creates a fresh database in the cluster and returns its DSN.
func (c *Cluster) NewDB(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("t%d", c.n.Add(1))
	cfg, err := pgx.ParseConfig(c.DSN)
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	return strings.Replace(c.DSN, "/postgres?", "/"+name+"?", 1)
}

// Exec runs a statement on a database (test set-up, fault injection).
func Exec(t testing.TB, dsn, q string, args ...any) {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("pgtest: %s: %v", q, err)
	}
}
