package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/analytics/chtest"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// operator runs the built binary on one data directory, as an operator
// would from a shell.
type operator struct {
	t    *testing.T
	bin  string
	data string
}

// run runs `bridgelog args... --data DIR` and fails the test unless it
// exits with wantCode.
func (o operator) run(wantCode int, args ...string) (stdout, stderr string) {
	o.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, o.bin, append(args, "--data", o.data)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		o.t.Fatalf("bridgelog %s: %v", strings.Join(args, " "), err)
	}
	if code != wantCode {
		o.t.Fatalf("bridgelog %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, wantCode, out.String(), errOut.String())
	}
	return out.String(), errOut.String()
}

// jsonLines parses one JSON object per line.
func jsonLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON line: %v: %q", err, line)
		}
		out = append(out, m)
	}
	return out
}

// inStore runs fn in a transaction on the live SQLite store and commits.
func inStore(t *testing.T, data string, fn func(ctx context.Context, tx projections.StoreTx) error) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(data, "projections.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tx, err := st.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := fn(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// withdrawalsLabel is how reports name the withdrawals projection.
func withdrawalsLabel() string {
	return fmt.Sprintf("withdrawals@v%d", projections.Withdrawals{}.Version())
}

// setFirstWithdrawalAmount is a statement that changes the amount of the
// withdrawals table's first row, as a damaged store would have it.
func setFirstWithdrawalAmount(amount string) string {
	t := projections.Withdrawals{}.Tables()[0].Name
	return "UPDATE " + t + " SET amount = '" + amount + "' WHERE rowid = (SELECT min(rowid) FROM " + t + ")"
}

// tamper runs a statement against the live SQLite store, as a bug or a
// hand edit would.
func tamper(t *testing.T, data, stmt string) {
	t.Helper()
	inStore(t, data, func(ctx context.Context, tx projections.StoreTx) error {
		_, err := tx.Exec(ctx, stmt)
		return err
	})
}

// storeQuery reads one row from the live SQLite store.
func storeQuery(t *testing.T, data, q string, dest ...any) {
	t.Helper()
	inStore(t, data, func(ctx context.Context, tx projections.StoreTx) error {
		return tx.QueryRow(ctx, q).Scan(dest...)
	})
}

// TestOperatorCommands drives the operator commands through the binary:
// verify passes on a store that matches the log, fails with exit status
// 3 naming the projection and the table when a row was changed behind the
// log's back, and passes again after replay rebuilds that projection;
// log inspect and log tail print JSON lines; prune drops only retired
// versions' tables, and only with --yes; and bad input (a bad flag, a
// damaged log file, a store from a newer binary) fails with a message
// that names it, losing nothing.
func TestOperatorCommands(t *testing.T) {
	o := operator{t: t, bin: testBinary(t), data: dataDir(t)}
	const bridgeTopic = "bridgelog.bridge.v1"

	out, _ := o.run(0, "log", "generate", "--events", "3000", "--seed", "7")
	if !strings.Contains(out, "appended 3000 events") {
		t.Fatalf("generate: %s", out)
	}
	out, _ = o.run(0, "project")
	if !strings.Contains(out, "folded 3000 records") {
		t.Fatalf("project: %s", out)
	}
	wantOK := []string{"ok        processed_events@v1", "ok        deposits@v1", "ok        " + withdrawalsLabel()}
	verifyOK := func(when string) {
		t.Helper()
		out, _ := o.run(0, "verify")
		for _, w := range wantOK {
			if !strings.Contains(out, w) {
				t.Fatalf("verify %s: no %q in\n%s", when, w, out)
			}
		}
		if strings.Contains(out, "MISMATCH") {
			t.Fatalf("verify %s: %s", when, out)
		}
	}
	verifyOK("after project")

	// The scratch store's digests taken as its rows were written are the
	// digests of its rows read back: both ways print the same lines.
	hashed, _ := o.run(0, "verify")
	readBack, _ := o.run(0, "verify", "--read-back")
	if okLines(hashed) == "" || okLines(hashed) != okLines(readBack) {
		t.Fatalf("verify:\n%s\nverify --read-back:\n%s", hashed, readBack)
	}

	t.Run("inspect and tail print JSON lines", func(t *testing.T) {
		out, _ := o.run(0, "log", "inspect", "--json", "--topic", bridgeTopic, "--partition", "0", "--from", "5", "--limit", "2")
		lines := jsonLines(t, out)
		if len(lines) != 2 {
			t.Fatalf("inspect --limit 2 printed %d lines:\n%s", len(lines), out)
		}
		for i, l := range lines {
			if l["topic"] != bridgeTopic || l["partition"] != 0.0 || l["offset"] != float64(5+i) {
				t.Fatalf("line %d is at %v/%v/%v, want %s/0/%d", i, l["topic"], l["partition"], l["offset"], bridgeTopic, 5+i)
			}
			if l["type"] == "" || l["sourceKey"] == "" || l["id"] == "" {
				t.Fatalf("line %d misses type, source key or id: %v", i, l)
			}
			if _, ok := l["payload"].(map[string]any); !ok {
				t.Fatalf("line %d: payload is not decoded: %v", i, l["payload"])
			}
		}
		// tail's last record of partition 0 is the last one inspect reads.
		all := jsonLines(t, first(o.run(0, "log", "inspect", "--json", "--topic", bridgeTopic, "--partition", "0", "--limit", "100000")))
		tail := jsonLines(t, first(o.run(0, "log", "tail", "--json", "--topic", bridgeTopic, "-n", "1")))
		var last map[string]any
		for _, l := range tail {
			if l["partition"] == 0.0 {
				last = l
			}
		}
		if last == nil || last["offset"] != float64(len(all)-1) || last["id"] != all[len(all)-1]["id"] {
			t.Fatalf("tail -n 1 of partition 0 = %v, want offset %d id %v", last, len(all)-1, all[len(all)-1]["id"])
		}
		// Without --json the same record reads as text.
		text := first(o.run(0, "log", "inspect", "--topic", bridgeTopic, "--partition", "0", "--from", "5", "--limit", "1"))
		if !strings.Contains(text, lines[0]["type"].(string)) || strings.HasPrefix(strings.TrimSpace(text), "{") {
			t.Fatalf("inspect without --json: %q", text)
		}
	})

	t.Run("verify names a tampered projection, replay repairs it", func(t *testing.T) {
		tamper(t, o.data, `UPDATE deposits_v1 SET amount = '1' WHERE rowid = (SELECT min(rowid) FROM deposits_v1)`)
		out, errOut := o.run(3, "verify")
		if !strings.Contains(out, "MISMATCH  deposits@v1") || !strings.Contains(out, "table deposits_v1") {
			t.Fatalf("verify does not name deposits:\n%s", out)
		}
		if !strings.Contains(errOut, "digest mismatch in deposits@v1") {
			t.Fatalf("verify error does not name deposits: %s", errOut)
		}
		if rb, _ := o.run(3, "verify", "--read-back"); okLines(rb) != okLines(out) {
			t.Fatalf("verify --read-back differs from verify:\n%s\nverify:\n%s", rb, out)
		}
		for _, w := range []string{wantOK[0], wantOK[2]} {
			if !strings.Contains(out, w) {
				t.Fatalf("verify: the untouched projections should pass, no %q in\n%s", w, out)
			}
		}
		// verify changes nothing: it still fails.
		o.run(3, "verify")

		// (The bar itself, on stderr, is throttled: TestProgressShowsRateAndETA.)
		out, _ = o.run(0, "replay", "--projection", "deposits")
		if !strings.Contains(out, "folded 3000 records") || !strings.Contains(out, "events/s") {
			t.Fatalf("replay: %s", out)
		}
		verifyOK("after replay")

		o.run(0, "replay", "--from-offset", "100", "--projection", "deposits", "--projection", "withdrawals")
		verifyOK("after replay --from-offset")

		tamper(t, o.data, setFirstWithdrawalAmount("2"))
		o.run(3, "verify")
		out, _ = o.run(0, "replay", "--in-place")
		if !strings.Contains(out, "folded 3000 records") {
			t.Fatalf("replay --in-place: %s", out)
		}
		verifyOK("after replay --in-place")
	})

	t.Run("a full replay builds a new store and moves it into place", func(t *testing.T) {
		tamper(t, o.data, `UPDATE deposits_v1 SET amount = '3' WHERE rowid = (SELECT min(rowid) FROM deposits_v1)`)
		// A retired version's table is not carried over.
		tamper(t, o.data, `CREATE TABLE old_totals_v1 (k TEXT PRIMARY KEY, n BIGINT)`)
		o.run(3, "verify")
		store := filepath.Join(o.data, "projections.db")
		// Not while another process has the store open.
		held, err := sqlstore.OpenSQLite(context.Background(), store)
		if err != nil {
			t.Fatal(err)
		}
		_, errOut := o.run(1, "replay")
		held.Close()
		if !strings.Contains(errOut, "store is in use") || !strings.Contains(errOut, "--in-place") {
			t.Fatalf("replay with the store open elsewhere: %s", errOut)
		}
		o.run(3, "verify") // the refused replay changed nothing

		out, errOut := o.run(0, "replay", "--log-level", "debug")
		if !strings.Contains(out, "folded 3000 records") || !strings.Contains(errOut, "store replaced") {
			t.Fatalf("replay: %s\n%s", out, errOut)
		}
		verifyOK("after an offline replay")
		var n int
		storeQuery(t, o.data, `SELECT count(*) FROM sqlite_master WHERE name = 'old_totals_v1'`, &n)
		if n != 0 {
			t.Fatal("the retired table survived the offline replay")
		}
		if _, err := os.Stat(store + ".replacement"); err == nil {
			t.Fatal("the new store's build file is left behind")
		}
	})

	t.Run("bad flags are refused", func(t *testing.T) {
		_, errOut := o.run(1, "replay", "--from-offset", "-1")
		if !strings.Contains(errOut, "--from-offset -1: must be >= 0") {
			t.Fatalf("replay --from-offset -1: %s", errOut)
		}
		_, errOut = o.run(1, "replay", "--from-offset", "3", "--projection", "processed_events")
		if !strings.Contains(errOut, "processed_events") {
			t.Fatalf("rewinding processed_events: %s", errOut)
		}
		_, errOut = o.run(1, "replay", "--projection", "no_such_projection")
		if !strings.Contains(errOut, "no_such_projection") {
			t.Fatalf("unknown projection: %s", errOut)
		}
		verifyOK("after refused replays")
	})

	t.Run("prune lists, then drops, only retired versions' tables", func(t *testing.T) {
		if out, _ := o.run(0, "prune"); !strings.Contains(out, "no retired projection versions") {
			t.Fatalf("prune on a store without retired versions: %s", out)
		}
		// A version a newer one replaced, as the runner records it.
		tamper(t, o.data, `CREATE TABLE old_totals_v1 (k TEXT PRIMARY KEY, n BIGINT)`)
		tamper(t, o.data, `INSERT INTO projection_versions (projection, version, state) VALUES ('old_totals', 1, 'retired')`)
		tamper(t, o.data, `INSERT INTO projection_tables (projection, version, table_name) VALUES ('old_totals', 1, 'old_totals_v1')`)
		out, _ := o.run(0, "prune")
		if !strings.Contains(out, "would drop old_totals@v1: old_totals_v1") || !strings.Contains(out, "nothing was changed") {
			t.Fatalf("prune without --yes: %s", out)
		}
		if out, _ := o.run(0, "prune", "--yes"); !strings.Contains(out, "dropped old_totals@v1: old_totals_v1") {
			t.Fatalf("prune --yes: %s", out)
		}
		if out, _ := o.run(0, "prune"); !strings.Contains(out, "no retired projection versions") {
			t.Fatalf("prune after dropping: %s", out)
		}
		var state string
		var tables int
		storeQuery(t, o.data, `SELECT state FROM projection_versions WHERE projection = 'old_totals'`, &state)
		storeQuery(t, o.data, `SELECT count(*) FROM sqlite_master WHERE name = 'old_totals_v1'`, &tables)
		if state != "dropped" || tables != 0 {
			t.Fatalf("after prune --yes: state %q, %d tables named old_totals_v1", state, tables)
		}
		verifyOK("after prune")
	})

	t.Run("a damaged log file is named, and nothing is lost", func(t *testing.T) {
		segs, err := filepath.Glob(filepath.Join(o.data, "log", bridgeTopic, "0", "*.seg"))
		if err != nil || len(segs) != 1 {
			t.Fatalf("segments of partition 0: %v %v", segs, err)
		}
		orig, err := os.ReadFile(segs[0])
		if err != nil {
			t.Fatal(err)
		}
		// One bit flipped in the middle of the file, not in a torn tail.
		bad := bytes.Clone(orig)
		bad[len(bad)/2] ^= 0x01
		if err := os.WriteFile(segs[0], bad, 0o644); err != nil {
			t.Fatal(err)
		}
		_, errOut := o.run(1, "log", "inspect", "--topic", bridgeTopic, "--partition", "0")
		if !strings.Contains(errOut, segs[0]) || !strings.Contains(errOut, "offset") {
			t.Fatalf("damaged segment not named with an offset: %s", errOut)
		}
		o.run(1, "verify")
		got, err := os.ReadFile(segs[0])
		if err != nil || !bytes.Equal(got, bad) {
			t.Fatalf("the damaged file was changed (%v): the evidence must stay as found", err)
		}
		if err := os.WriteFile(segs[0], orig, 0o644); err != nil {
			t.Fatal(err)
		}
		verifyOK("after the file is restored")
	})

	t.Run("a store from a newer binary is refused untouched", func(t *testing.T) {
		ctx := context.Background()
		st, err := sqlstore.OpenSQLite(ctx, filepath.Join(o.data, "projections.db"))
		if err != nil {
			t.Fatal(err)
		}
		err = sqlstore.SetFormatForTest(ctx, st, projections.StoreFormat+1)
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		_, errOut := o.run(1, "project")
		want := fmt.Sprintf("has format %d, this binary supports up to %d", projections.StoreFormat+1, projections.StoreFormat)
		if !strings.Contains(errOut, "projections.db") || !strings.Contains(errOut, want) {
			t.Fatalf("newer store: %s", errOut)
		}
		st, err = sqlstore.OpenSQLite(ctx, filepath.Join(o.data, "projections.db"))
		if err == nil {
			st.Close()
			t.Fatal("the newer store opened after project refused it: its format was changed")
		}
		var tooNew *projections.StoreTooNewError
		if !errors.As(err, &tooNew) {
			t.Fatalf("reopening: %v, want a StoreTooNewError", err)
		}
	})
}

func first(a, _ string) string { return a }

// TestAnalyticsCommands sinks a generated log into a throwaway ClickHouse
// through the binary and reads it back with the query commands.
func TestAnalyticsCommands(t *testing.T) {
	srv := chtest.Start(t)
	o := operator{t: t, bin: testBinary(t), data: dataDir(t)}
	dsn := srv.NewDB(t)
	o.run(0, "log", "generate", "--events", "2000", "--seed", "5")
	out, _ := o.run(0, "analytics", "sink", "--clickhouse", dsn)
	if !strings.Contains(out, "sank 2000 records (0 undecodable)") {
		t.Fatalf("sink: %s", out)
	}
	if out, _ := o.run(0, "analytics", "sink", "--clickhouse", dsn); !strings.Contains(out, "sank 0 records") {
		t.Fatalf("second sink: %s", out)
	}
	lat := jsonLines(t, first(o.run(0, "analytics", "latency", "--json", "--clickhouse", dsn)))
	if len(lat) != 2 || lat[0]["flow"] != "deposit" || lat[0]["completed"].(float64) == 0 {
		t.Fatalf("latency: %v", lat)
	}
	errs := first(o.run(0, "analytics", "errors", "--clickhouse", dsn))
	if !strings.Contains(errs, "deposit.failed") || !strings.Contains(errs, "RATE") {
		t.Fatalf("errors: %s", errs)
	}
	// The audit trail of the first deposit, as the log has it.
	ev := jsonLines(t, first(o.run(0, "log", "inspect", "--json", "--topic", "bridgelog.bridge.v1", "--partition", "0", "--limit", "1")))[0]
	trail := jsonLines(t, first(o.run(0, "analytics", "audit", ev["aggregateId"].(string), "--events", "--json", "--clickhouse", dsn)))
	if len(trail) == 0 || trail[0]["eventId"] != ev["id"] || trail[0]["offset"] != 0.0 {
		t.Fatalf("audit of %s: %v", ev["aggregateId"], trail)
	}
	if kinds, _ := trail[0]["kinds"].([]any); len(kinds) == 0 || kinds[0] != "aggregate" {
		t.Fatalf("audit of %s: first match's kinds %v, want aggregate", ev["aggregateId"], trail[0]["kinds"])
	}
	if table := first(o.run(0, "analytics", "audit", ev["id"].(string), "--events", "--clickhouse", dsn)); !strings.Contains(table, "KINDS") ||
		!strings.Contains(table, "event_id") {
		t.Fatalf("audit of event %s: %s", ev["id"], table)
	}
	// A key that finds nothing: exit code 1, said in words.
	if _, errOut := o.run(1, "analytics", "audit", "deposit:evm:1:0xnothing:0", "--clickhouse", dsn); !strings.Contains(errOut, "no event matches") {
		t.Fatalf("audit of an unknown key: %s", errOut)
	}
	// ClickHouse down: exit code 2, and the local store's command named.
	_, errOut := o.run(2, "analytics", "audit", "deposit:x", "--clickhouse", "clickhouse://127.0.0.1:1/default?dial_timeout=1s")
	if !strings.Contains(errOut, "unreachable") || !strings.Contains(errOut, "`bridgelog audit deposit:x`") {
		t.Fatalf("audit with the warehouse down: %s", errOut)
	}
	_, errOut = o.run(1, "analytics", "gas", "--clickhouse", "clickhouse://127.0.0.1:1/default?dial_timeout=1s")
	if !strings.Contains(errOut, "127.0.0.1:1") {
		t.Fatalf("unreachable warehouse: %s", errOut)
	}
}

// TestOfflineReplaySurvivesSIGKILL kills a full (offline) replay with
// SIGKILL at moments spread over its run: every time, the store left in
// place is the old one or the new one, whole (verify passes), and the
// next replay starts over cleanly.
func TestOfflineReplaySurvivesSIGKILL(t *testing.T) {
	o := operator{t: t, bin: testBinary(t), data: dataDir(t)}
	o.run(0, "log", "generate", "--events", "60000", "--seed", "11")
	o.run(0, "replay")
	start := time.Now()
	o.run(0, "replay")
	full := time.Since(start)
	verify := func(when string) {
		t.Helper()
		out, _ := o.run(0, "verify")
		if strings.Contains(out, "MISMATCH") || !strings.Contains(out, "ok        deposits@v1") {
			t.Fatalf("verify %s: %s", when, out)
		}
	}
	const kills = 8
	for i := range kills {
		at := full * time.Duration(2*i+1) / (2 * kills)
		cmd := exec.Command(o.bin, "replay", "--data", o.data)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(at)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		verify(fmt.Sprintf("after a kill at %v of %v", at.Round(time.Millisecond), full.Round(time.Millisecond)))
	}
	out, _ := o.run(0, "replay")
	if !strings.Contains(out, "folded 60000 records") {
		t.Fatalf("replay after the kills: %s", out)
	}
	verify("after the last replay")
}

// --cpu-profile writes a whole profile that pprof reads, also when the
// command fails; a profile that cannot be created stops the command
// before it runs.
func TestCPUProfileFlag(t *testing.T) {
	o := operator{t: t, bin: testBinary(t), data: dataDir(t)}
	dir := t.TempDir()
	ok, failed := filepath.Join(dir, "ok.pprof"), filepath.Join(dir, "failed.pprof")
	o.run(0, "log", "generate", "--events", "2000", "--seed", "3", "--cpu-profile", ok)
	_, stderr := o.run(1, "replay", "--projection", "no_such_projection", "--cpu-profile", failed)
	if !strings.Contains(stderr, "no_such_projection") {
		t.Fatalf("replay of an unknown projection: %s", stderr)
	}
	for _, p := range []string{ok, failed} {
		out, err := exec.Command("go", "tool", "pprof", "-top", o.bin, p).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Type: cpu") {
			t.Fatalf("pprof cannot read %s: %v\n%s", p, err, out)
		}
	}
	_, stderr = o.run(1, "log", "generate", "--events", "10", "--cpu-profile", filepath.Join(dir, "missing", "p.pprof"))
	if !strings.Contains(stderr, "--cpu-profile") {
		t.Fatalf("an uncreatable profile: %s", stderr)
	}
	out, _ := o.run(0, "log", "tail", "--json", "-n", "100000")
	if n := len(jsonLines(t, out)); n != 2000 {
		t.Fatalf("the log holds %d events after the refused generate, want 2000", n)
	}
}

// okLines returns verify's result lines ("ok …", "MISMATCH …").
func okLines(out string) string {
	var b strings.Builder
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "MISMATCH") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// TestVerifyScansSealedSegments: other commands open an embedded log's
// sealed segments from their index files, so damage inside one is found
// only when it is read; verify scans every frame, so it reports the
// damage with the file and byte offset even in a topic no projection
// reads.
func TestVerifyScansSealedSegments(t *testing.T) {
	o := operator{t: t, bin: testBinary(t), data: dataDir(t)}
	dir := filepath.Join(o.data, "log")
	lg, err := embeddedlog.Open(dir, embeddedlog.WithSegmentBytes(4096))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		msg := topics.Message{Key: []byte("k"), Value: fmt.Appendf(nil, "dead letter %03d %s", i, strings.Repeat("x", 100))}
		if _, err := lg.Append(context.Background(), topics.TopicDeadLetter, msg); err != nil {
			t.Fatal(err)
		}
	}
	if err := lg.Close(); err != nil {
		t.Fatal(err)
	}
	o.run(0, "project")
	o.run(0, "verify")
	first := filepath.Join(dir, topics.TopicDeadLetter, "0", "00000000000000000000.seg")
	if _, err := os.Stat(strings.TrimSuffix(first, ".seg") + ".idx"); err != nil {
		t.Fatalf("the sealed first segment has no index file: %v", err)
	}
	b, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x01
	if err := os.WriteFile(first, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// Reading past the damage works: the segment is opened from its index.
	out, _ := o.run(0, "log", "inspect", "--topic", topics.TopicDeadLetter, "--from", "90", "--limit", "1", "--json")
	if !strings.Contains(out, `"offset":90`) {
		t.Fatalf("inspect past the damage: %s", out)
	}
	_, errOut := o.run(1, "verify")
	if !strings.Contains(errOut, first) || !strings.Contains(errOut, "corrupt") {
		t.Fatalf("verify did not name the damaged segment: %s", errOut)
	}
}

// TestOperatorProjectionsBatchScoped: every projection the binary drives
// declares it keeps nothing past a batch, so its catch-ups and rebuilds
// reuse their read memory (a projection that did not would make every
// rebuild read into fresh memory, and the runner say so in its log).
func TestOperatorProjectionsBatchScoped(t *testing.T) {
	sets := map[string][]projections.Projection{"projectionSet": projectionSet(), "RelayProjections": projections.RelayProjections(),
		"built in": {projections.ProcessedEvents{}}}
	for name, ps := range sets {
		for _, p := range ps {
			if _, ok := p.(projections.BatchScoped); !ok {
				t.Errorf("%s: %s is not projections.BatchScoped", name, p.Name())
			}
		}
	}
}

// TestRelayLogVerify: a log with the relayer's own events (log generate
// --relay-events) projects, verifies and replays with every projection
// the relay keeps, tx_intents version 2 among them: the scratch store's
// bulk load equals the live tables folded through SQLite's engine.
func TestRelayLogVerify(t *testing.T) {
	o := operator{t: t, bin: testBinary(t), data: dataDir(t)}
	out, _ := o.run(0, "log", "generate", "--events", "4000", "--seed", "21", "--relay-events")
	if !strings.Contains(out, "appended 4000 events") {
		t.Fatalf("generate: %s", out)
	}
	o.run(0, "project")
	for _, when := range []string{"after project", "after replay"} {
		out, _ = o.run(0, "verify")
		for _, w := range []string{"ok        tx_intents@v2", "ok        chain_cursors@v2", "ok        batches@v1", "ok        deposits@v1"} {
			if !strings.Contains(out, w) || strings.Contains(out, "MISMATCH") {
				t.Fatalf("verify %s: no %q in\n%s", when, w, out)
			}
		}
		for _, table := range []string{"tx_intents@v2", "batches@v1"} {
			if m := regexp.MustCompile(table + `  (\d+) rows`).FindStringSubmatch(out); m == nil || len(m[1]) < 3 {
				t.Fatalf("verify %s: %s should have hundreds of rows:\n%s", when, table, out)
			}
		}
		o.run(0, "replay")
	}
}

// TestDedupCacheKeysFlag: --dedup-cache-keys reaches every runner the
// commands build. Below a log's size, replay warns that processed_events
// folds through the engine, and the store still verifies; a bound that
// is not positive is refused.
func TestDedupCacheKeysFlag(t *testing.T) {
	o := operator{t: t, bin: testBinary(t), data: dataDir(t)}
	o.run(0, "log", "generate", "--events", "2000", "--seed", "4")
	const warning = "processed_events not loaded from zero"
	_, stderr := o.run(0, "replay", "--dedup-cache-keys", "500")
	if !strings.Contains(stderr, warning) {
		t.Fatalf("replay over the bound did not warn:\n%s", stderr)
	}
	out, stderr := o.run(0, "verify", "--dedup-cache-keys", "500")
	if !strings.Contains(stderr, warning) || strings.Contains(okLines(out), "MISMATCH") {
		t.Fatalf("verify over the bound: warned %t\n%s", strings.Contains(stderr, warning), out)
	}
	if _, stderr := o.run(0, "replay"); strings.Contains(stderr, warning) {
		t.Fatalf("replay within the default bound warned:\n%s", stderr)
	}
	if _, stderr := o.run(1, "status", "--dedup-cache-keys", "0"); !strings.Contains(stderr, "--dedup-cache-keys") {
		t.Fatalf("a bound of 0: %s", stderr)
	}
}

// TestAnotherLogIsRefused: a data directory whose log was swapped for
// another (shorter: restored from an older copy; or longer) is refused by
// project and verify, each saying why, before anything is folded; replay
// rebuilds the store from the log that is there, and verify is then ok.
func TestAnotherLogIsRefused(t *testing.T) {
	o := operator{t: t, bin: testBinary(t), data: dataDir(t)}
	o.run(0, "log", "generate", "--events", "3000", "--seed", "1")
	o.run(0, "project")
	for _, c := range []struct {
		events string
		want   string
	}{
		{"1000", "log ends before the store's checkpoint"},
		{"5000", "store was folded from another log"},
	} {
		other := operator{t: t, bin: o.bin, data: dataDir(t)}
		other.run(0, "log", "generate", "--events", c.events, "--seed", "2")
		if err := os.RemoveAll(filepath.Join(o.data, "log")); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(other.data, "log"), filepath.Join(o.data, "log")); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []string{"project", "verify"} {
			if _, stderr := o.run(1, cmd); !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "bridgelog replay") {
				t.Fatalf("%s against a log of %s events: %s", cmd, c.events, stderr)
			}
		}
	}
	o.run(0, "replay")
	if out, _ := o.run(0, "verify"); strings.Contains(okLines(out), "MISMATCH") {
		t.Fatalf("verify after replay:\n%s", out)
	}
}

// TestMissingStoreIsBuiltInBulk: project where the SQLite store is
// missing builds it in bulk first when the log holds at least
// --bulk-build-min records, into the same rows as folding through SQLite's
// engine gives; a smaller log or a store that exists is folded through the
// engine.
func TestMissingStoreIsBuiltInBulk(t *testing.T) {
	const building, built = "store missing: building it from the log in bulk", "store built in bulk"
	bin := testBinary(t)
	bulk := operator{t: t, bin: bin, data: dataDir(t)}
	engine := operator{t: t, bin: bin, data: dataDir(t)}
	for _, o := range []operator{bulk, engine} {
		o.run(0, "log", "generate", "--events", "3000", "--seed", "6")
	}
	out, stderr := engine.run(0, "project", "--bulk-build-min", "3001")
	if strings.Contains(stderr, building) || !strings.Contains(out, "folded 3000 records") {
		t.Fatalf("project with a log below the bound:\n%s\n%s", out, stderr)
	}
	out, stderr = bulk.run(0, "project", "--bulk-build-min", "3000")
	if !strings.Contains(stderr, building) || !strings.Contains(stderr, built) || !strings.Contains(out, "folded 3000 records") {
		t.Fatalf("project on a missing store:\n%s\n%s", out, stderr)
	}
	if _, err := os.Stat(filepath.Join(bulk.data, "projections.db.replacement")); err == nil {
		t.Fatal("the build file is left behind")
	}
	bulkOut, _ := bulk.run(0, "verify")
	engineOut, _ := engine.run(0, "verify")
	if a, b := okLines(bulkOut), okLines(engineOut); a != b || strings.Count(a, "ok ") < 3 {
		t.Fatalf("the store built in bulk differs from the one folded through the engine:\n%s\n%s", a, b)
	}

	// A store that exists is caught up, not built again.
	bulk.run(0, "log", "generate", "--events", "500", "--seed", "7")
	out, stderr = bulk.run(0, "project", "--bulk-build-min", "1")
	if strings.Contains(stderr, building) || !strings.Contains(out, "folded 500 records") {
		t.Fatalf("project on an existing store:\n%s\n%s", out, stderr)
	}
	// 0 never builds; a negative bound is refused before anything is opened.
	if err := os.Remove(filepath.Join(engine.data, "projections.db")); err != nil {
		t.Fatal(err)
	}
	if _, stderr := engine.run(0, "project", "--bulk-build-min", "0"); strings.Contains(stderr, building) {
		t.Fatalf("--bulk-build-min 0 built in bulk:\n%s", stderr)
	}
	if _, stderr := engine.run(1, "project", "--bulk-build-min", "-1"); !strings.Contains(stderr, "--bulk-build-min -1") {
		t.Fatalf("a negative bound: %s", stderr)
	}
}

// TestLogBackupCommand: log backup copies the embedded log into a new
// directory that a data directory can use as its log: the same records,
// so the same projections. It refuses an existing directory, a log another
// process holds (naming the relay's flags), and Kafka.
func TestLogBackupCommand(t *testing.T) {
	o := operator{t: t, bin: testBinary(t), data: dataDir(t)}
	o.run(0, "log", "generate", "--events", "3000", "--seed", "8")
	o.run(0, "project")
	backup := filepath.Join(t.TempDir(), "log-copy")
	if out, _ := o.run(0, "log", "backup", backup); !strings.Contains(out, "backed up 3000 records") {
		t.Fatalf("log backup: %s", out)
	}
	if _, stderr := o.run(1, "log", "backup", backup); !strings.Contains(stderr, "backup directory exists") {
		t.Fatalf("backup over an existing one: %s", stderr)
	}
	restored := operator{t: t, bin: o.bin, data: dataDir(t)}
	if err := os.Rename(backup, filepath.Join(restored.data, "log")); err != nil {
		t.Fatal(err)
	}
	if out, _ := restored.run(0, "project"); !strings.Contains(out, "folded 3000 records") {
		t.Fatalf("project on the backup: %s", out)
	}
	a, _ := o.run(0, "verify")
	b, _ := restored.run(0, "verify")
	if okLines(a) != okLines(b) || strings.Count(okLines(a), "ok ") < 3 {
		t.Fatalf("the backup's projections differ from the log's:\n%s\n%s", okLines(a), okLines(b))
	}
	held, err := embeddedlog.Open(filepath.Join(o.data, "log"))
	if err != nil {
		t.Fatal(err)
	}
	_, stderr := o.run(1, "log", "backup", filepath.Join(t.TempDir(), "other"))
	held.Close()
	if !strings.Contains(stderr, "--backup-every") {
		t.Fatalf("backup of a log another process holds: %s", stderr)
	}
	if _, stderr := o.run(1, "log", "backup", filepath.Join(t.TempDir(), "k"), "--log", "kafka"); !strings.Contains(stderr, "replicas") {
		t.Fatalf("backup of a Kafka log: %s", stderr)
	}
}

// logRecords counts the records of every topic of the embedded log in dir.
func logRecords(t *testing.T, dir string) int64 {
	t.Helper()
	lg, err := embeddedlog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	var n int64
	for _, spec := range topics.Topics() {
		ends, err := lg.EndOffsets(context.Background(), spec.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ends {
			n += e
		}
	}
	return n
}

// TestLogRestoreCommand: log restore puts a backup in place, keeps the log
// that was there aside, and rebuilds the store from the backup, which it
// leaves as it was. It refuses while the log is open elsewhere, and a
// damaged backup changes nothing.
func TestLogRestoreCommand(t *testing.T) {
	o := operator{t: t, bin: testBinary(t), data: dataDir(t)}
	o.run(0, "log", "generate", "--events", "3000", "--seed", "8")
	backup := filepath.Join(t.TempDir(), "backup")
	o.run(0, "log", "backup", backup)
	o.run(0, "log", "generate", "--events", "500", "--seed", "9")
	o.run(0, "project")
	logDir := filepath.Join(o.data, "log")

	// A damaged backup: refused, nothing moved.
	damaged := filepath.Join(t.TempDir(), "damaged")
	if out, err := exec.Command("cp", "-a", backup, damaged).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	segs, _ := filepath.Glob(filepath.Join(damaged, topics.TopicBridge, "0", "*.seg"))
	if len(segs) == 0 {
		t.Fatal("no segment in the backup")
	}
	b, err := os.ReadFile(segs[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/3] ^= 0x01
	if err := os.WriteFile(segs[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr := o.run(1, "log", "restore", damaged); !strings.Contains(stderr, filepath.Base(segs[0])) {
		t.Fatalf("restore from a damaged backup: %s", stderr)
	}
	// Refused while another process holds the log.
	held, err := embeddedlog.Open(logDir)
	if err != nil {
		t.Fatal(err)
	}
	_, stderr := o.run(1, "log", "restore", backup)
	held.Close()
	if !strings.Contains(stderr, "stop the relay") {
		t.Fatalf("restore while the log is held: %s", stderr)
	}
	if asides, _ := filepath.Glob(logDir + ".before-restore-*"); len(asides) != 0 || logRecords(t, logDir) != 3500 {
		t.Fatalf("a refused restore changed the log: %v", asides)
	}

	out, _ := o.run(0, "log", "restore", backup)
	if !strings.Contains(out, "restored 3000 records") || !strings.Contains(out, "folded 3000 records") || !strings.Contains(out, "kept in") {
		t.Fatalf("log restore: %s", out)
	}
	asides, _ := filepath.Glob(logDir + ".before-restore-*")
	if len(asides) != 1 || logRecords(t, asides[0]) != 3500 || logRecords(t, logDir) != 3000 || logRecords(t, backup) != 3000 {
		t.Fatalf("after the restore: aside %v", asides)
	}
	if out, _ := o.run(0, "verify"); strings.Count(okLines(out), "ok ") < 3 || strings.Contains(okLines(out), "MISMATCH") {
		t.Fatalf("verify after the restore:\n%s", out)
	}
	if out, _ := o.run(0, "project"); !strings.Contains(out, "folded 0 records") {
		t.Fatalf("project after the restore: %s", out)
	}
}
