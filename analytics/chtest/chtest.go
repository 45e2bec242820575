// Package chtest starts a throwaway ClickHouse server for tests, through
// deploy/clickhouse/throwaway.sh, the same script CI and developers use. It
// fails the test loudly when the server cannot start: a test that needs
// ClickHouse never silently skips.
//
// The server is Debian's clickhouse-server 18.16.1 and clients talk the
// native protocol (clickhouse-go/v2 over HTTP does not work with it). Keep
// schemas inside what 18.16 supports: no DateTime64, JSON, Map, TTL or
// CODEC; name the columns in batch inserts; load rows with batches, never
// INSERT … VALUES through Exec (the server waits for data that never comes).
package chtest

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/bridgelog/bridgelog/deploy/throwaway"
)

const installHint = "install the server: apt-get install -y clickhouse-server clickhouse-client"

// opTimeout bounds every statement a helper runs.
const opTimeout = 30 * time.Second

// Server is a running throwaway server.
type Server struct {
	DSN string // the default database
	n   atomic.Int64
}

// Start starts a server that lives until the test (and its subtests) end.
func Start(t testing.TB) *Server {
	t.Helper()
	// The native port, and the HTTP one the server always opens.
	s := throwaway.StartOnFreePorts(t, "clickhouse", installHint, 2)
	return &Server{DSN: s.DSN}
}

// NewDB creates a fresh database (t1, t2, …) on the server and returns its
// DSN, so tests sharing a server do not see each other's tables.
func (s *Server) NewDB(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("t%d", s.n.Add(1))
	Exec(t, s.DSN, "CREATE DATABASE "+name)
	return strings.Replace(s.DSN, "/default?", "/"+name+"?", 1)
}

// Open connects to dsn over the native protocol; the connection is closed
// when the test ends. Use it for batches (PrepareBatch) and queries.
func Open(t testing.TB, dsn string) driver.Conn {
	t.Helper()
	conn := open(t, dsn)
	t.Cleanup(func() { conn.Close() })
	return conn
}

func open(t testing.TB, dsn string) driver.Conn {
	t.Helper()
	opts, err := clickhouse.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("chtest: parse DSN %q: %v", dsn, err)
	}
	conn, err := clickhouse.Open(opts)
	if err != nil {
		t.Fatalf("chtest: open %s: %v", dsn, err)
	}
	return conn
}

// insertValues matches INSERT … VALUES, which hangs when sent through Exec
// on 18.16; refusing it turns a 30 s timeout into an immediate message.
var insertValues = regexp.MustCompile(`(?is)^\s*INSERT\b.*\bVALUES\b`)

// Exec runs a statement on a database (test set-up, fault injection).
func Exec(t testing.TB, dsn, query string, args ...any) {
	t.Helper()
	if insertValues.MatchString(query) {
		t.Fatalf("chtest: %s: INSERT … VALUES through Exec hangs on ClickHouse 18.16; use Open(…).PrepareBatch(ctx, \"INSERT INTO t (cols…)\")", query)
	}
	conn := open(t, dsn)
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	if err := conn.Exec(ctx, query, args...); err != nil {
		t.Fatalf("chtest: %s: %v", query, err)
	}
}
