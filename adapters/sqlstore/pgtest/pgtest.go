// Package pgtest starts a throwaway PostgreSQL cluster for tests, through
// deploy/postgres/throwaway.sh, the same script CI and developers use. It
// fails the test loudly when the cluster cannot start: a test that needs
// PostgreSQL never silently skips.
package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// Cluster is a running throwaway cluster.
type Cluster struct {
	DSN string // the postgres database, as superuser
	dir string
	n   atomic.Int64
}

// script locates deploy/postgres/throwaway.sh from this file's path.
func script() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "deploy", "postgres", "throwaway.sh")
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("pgtest: pick a port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Start starts a cluster that lives until the test (and its subtests)
// end.
func Start(t testing.TB) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, script(), "start", fmt.Sprint(freePort(t)))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pgtest: cannot start PostgreSQL with %s: %v\n%s\n(install the server: apt-get install -y postgresql)", script(), err, stderr.String())
	}
	c := &Cluster{}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "DIR="); ok {
			c.dir = v
		}
		if v, ok := strings.CutPrefix(line, "DSN="); ok {
			c.DSN = v
		}
	}
	if c.dir == "" || c.DSN == "" {
		t.Fatalf("pgtest: unexpected output from %s: %q", script(), out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command(script(), "stop", c.dir).CombinedOutput(); err != nil {
			t.Errorf("pgtest: stop cluster %s: %v\n%s", c.dir, err, out)
		}
	})
	return c
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
