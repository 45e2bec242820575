package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/handlers/signing"
	"github.com/bridgelog/bridgelog/topics"
)

var fixtureEvent = twophase.SigningEvent{Stream: "evm:31337:0xbridge", Nonce: twophase.FirstNonce, Destination: "sim:alice", Amount: 150_000,
	Source: twophase.SourceRef{Chain: "evm:31337", Block: 1200}}

// abandonedSignerLog writes the log of signer s1 having run fixtureEvent
// to Abandoned: its ledger view has no outputs, so its only round fails
// and, with no retry, the event is abandoned. The facts are the
// protocol's own decisions, driven on a twophase.State.
func abandonedSignerLog(t *testing.T, s *signerSetup) {
	t.Helper()
	st, err := twophase.NewState(s.protocol)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	env := func() twophase.Env {
		return twophase.Env{Now: now, View: func() (twophase.LedgerView, error) { return twophase.LedgerView{VirtualDAAScore: 5000}, nil }}
	}
	facts := st.Start(env()).Facts
	facts = append(facts, st.Request(fixtureEvent, "source", env()).Facts...)
	for i := 0; i < 10; i++ {
		if e, _ := st.Event(fixtureEvent.ID()); e.Phase == twophase.PhaseAbandoned {
			break
		}
		now = now.Add(s.protocol.Params.Tick)
		facts = append(facts, st.Tick(env()).Facts...)
	}
	if e, _ := st.Event(fixtureEvent.ID()); e.Phase != twophase.PhaseAbandoned || e.Epoch != 0 {
		t.Fatalf("fixture: event at %s epoch %d, want Abandoned in epoch 0", e.Phase, e.Epoch)
	}
	appendSignerFacts(t, s, facts)
}

// appendSignerFacts appends facts to the signer's embedded log.
func appendSignerFacts(t *testing.T, s *signerSetup, facts []twophase.Fact) {
	t.Helper()
	lg, err := embeddedlog.Open(s.logDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	evs := make([]domain.Event, len(facts))
	for i, f := range facts {
		evs[i] = f
	}
	app := &handlers.Appender{Log: lg, Catalog: topics.DefaultCatalog()}
	if _, err := app.Append(context.Background(), handlers.Cause{}, evs...); err != nil {
		t.Fatal(err)
	}
}

// signerLogFacts reads every fact of the signer's log, by type.
func signerLogFacts(t *testing.T, s *signerSetup) map[string][]twophase.Fact {
	t.Helper()
	lg, err := embeddedlog.OpenReadOnly(s.logDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	out := map[string][]twophase.Fact{}
	if _, err := signing.Replay(context.Background(), lg, func(f twophase.Fact) { out[f.EventType()] = append(out[f.EventType()], f) }); err != nil {
		t.Fatal(err)
	}
	return out
}

func countFacts(m map[string][]twophase.Fact) int {
	n := 0
	for _, fs := range m {
		n += len(fs)
	}
	return n
}

func adminFlagsFor(f *signerFixture, configPath string) adminFlags {
	return adminFlags{config: configPath, operator: "alice", reason: "s2's node was out of sync; fixed", credential: f.credential}
}

func TestSignerAdminResetAbandoned(t *testing.T) {
	f := newSignerFixture(t, 3, 2)
	path := f.write(t)
	s := f.load(t)
	abandonedSignerLog(t, s)
	before := signerLogFacts(t, s)
	id := fixtureEvent.ID()

	res, err := runSignerAdmin(context.Background(), adminFlagsFor(f, path), resetAction(id))
	if err != nil {
		t.Fatal(err)
	}
	after := signerLogFacts(t, s)
	resets := after[twophase.TypeAdminReset]
	if len(resets) != 1 || countFacts(after) != countFacts(before)+1 {
		t.Fatalf("%d facts before, %d after, %d admin resets: want exactly the reset appended", countFacts(before), countFacts(after), len(resets))
	}
	r := resets[0].(*twophase.AdminReset)
	if r.EventID != id || r.Epoch != 1 || r.Operator != "alice" || r.Reason != "s2's node was out of sync; fixed" {
		t.Fatalf("recorded %+v", r)
	}
	var out strings.Builder
	if err := res.print(&out); err != nil {
		t.Fatal(err)
	}
	if want := `recorded signing.admin_reset event_id=` + id.Hex() + ` epoch=1 operator="alice" reason="s2's node was out of sync; fixed"`; !strings.Contains(out.String(), want) {
		t.Fatalf("printed %q, want %q", out.String(), want)
	}

	// Replayed, the event waits at round 0 of epoch 1, not started.
	st, err := twophase.NewState(s.protocol)
	if err != nil {
		t.Fatal(err)
	}
	lg, err := embeddedlog.Open(s.logDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	if _, err := signing.Replay(context.Background(), lg, st.Apply); err != nil {
		t.Fatal(err)
	}
	if e, _ := st.Event(id); e.Phase != twophase.PhaseUnknown || e.Epoch != 1 || e.Round != 0 {
		t.Fatalf("replayed: %s epoch %d round %d, want Unknown in epoch 1 round 0", e.Phase, e.Epoch, e.Round)
	}
	// The signer, started again, takes its turn: Proposing in epoch 1.
	sg, err := signing.Open(context.Background(), signing.Config{Protocol: s.protocol, Log: lg, Transport: silentTransport{}, Ledger: offlineLedger{},
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := sg.Event(id); e.Phase != twophase.PhaseProposing || e.Epoch != 1 || e.Round != 0 {
		t.Fatalf("started: %s epoch %d round %d, want Proposing in epoch 1 round 0", e.Phase, e.Epoch, e.Round)
	}
}

func TestSignerAdminCredentialRefused(t *testing.T) {
	f := newSignerFixture(t, 3, 2)
	path := f.write(t)
	s := f.load(t)
	abandonedSignerLog(t, s)
	before := countFacts(signerLogFacts(t, s))

	wrong := f.writeSecret(t, "wrong.credential", "incorrect horse")
	readable := f.writeSecret(t, "readable.credential", fixtureCredential)
	chmod(t, readable, 0o644)
	for name, c := range map[string]struct{ file, want string }{
		"wrong":    {wrong, "the credential in " + wrong + " is not this signer's"},
		"missing":  {filepath.Join(f.dir, "none"), "no such file"},
		"readable": {readable, "has mode 0644"},
	} {
		fl := adminFlagsFor(f, path)
		fl.credential = c.file
		_, err := runSignerAdmin(context.Background(), fl, resetAction(fixtureEvent.ID()))
		if !errors.Is(err, ErrAdminCredential) || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s credential: %v, want %v saying %q", name, err, ErrAdminCredential, c.want)
		}
	}
	f.cfg.Admin.CredentialSHA256 = ""
	_, err := runSignerAdmin(context.Background(), adminFlagsFor(f, f.write(t)), resetAction(fixtureEvent.ID()))
	if !errors.Is(err, ErrAdminCredential) || !strings.Contains(err.Error(), "takes no admin actions") {
		t.Fatalf("no admin hash configured: %v", err)
	}
	if after := countFacts(signerLogFacts(t, s)); after != before {
		t.Fatalf("%d facts before, %d after refused actions", before, after)
	}
}

func TestSignerAdminReinjectIdempotent(t *testing.T) {
	f := newSignerFixture(t, 3, 2)
	path := f.write(t)
	s := f.load(t)
	abandonedSignerLog(t, s) // the signer has run; the stream is at its first nonce
	ev := fixtureEvent
	ev.Nonce = twophase.FirstNonce + 1
	ev.Destination = "sim:bob"
	for run := 1; run <= 2; run++ {
		res, err := runSignerAdmin(context.Background(), adminFlagsFor(f, path), reinjectAction(ev))
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		var out strings.Builder
		if err := res.print(&out); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		want := "recorded signing.event_requested event_id=" + ev.ID().Hex()
		if run == 2 {
			want = "event " + ev.ID().Hex() + " was already requested: no new request recorded"
		}
		if !strings.Contains(out.String(), "recorded signing.admin_reinjected event_id="+ev.ID().Hex()+` epoch=0 operator="alice"`) ||
			!strings.Contains(out.String(), want) {
			t.Fatalf("run %d printed:\n%s\nwant %q", run, out.String(), want)
		}
		facts := signerLogFacts(t, s)
		var requested []*twophase.EventRequested
		for _, fact := range facts[twophase.TypeEventRequested] {
			if r := fact.(*twophase.EventRequested); r.ID == ev.ID() {
				requested = append(requested, r)
			}
		}
		if len(facts[twophase.TypeAdminReinjected]) != run || len(requested) != 1 || requested[0].Via != "admin" {
			t.Fatalf("after run %d: %d admin_reinjected, %d event_requested of the event; want %d and 1 (via admin)",
				run, len(facts[twophase.TypeAdminReinjected]), len(requested), run)
		}
		if len(facts[twophase.TypeRoundStarted]) != 1 {
			t.Fatalf("after run %d: %d rounds started, want only the fixture's: nothing starts offline", run, len(facts[twophase.TypeRoundStarted]))
		}
	}

	bad := ev
	bad.Destination = "kaspa:qq"
	_, err := runSignerAdmin(context.Background(), adminFlagsFor(f, path), reinjectAction(bad))
	if !errors.Is(err, twophase.ErrAdmin) || !strings.Contains(err.Error(), "--destination") {
		t.Fatalf("destination of another network: %v", err)
	}
}

// TestSignerAdminCommands runs the built binary as an operator would: it
// prints what it recorded, exits non-zero on a wrong credential, and
// refuses while another process holds the signer's log.
func TestSignerAdminCommands(t *testing.T) {
	bin := testBinary(t)
	f := newSignerFixture(t, 3, 2)
	path := f.write(t)
	s := f.load(t)
	abandonedSignerLog(t, s)
	reset := func(want int, credential string, extra ...string) (string, string) {
		t.Helper()
		return runCommand(t, bin, want, append([]string{"signer", "admin", "reset", "--config", path, "--event", fixtureEvent.ID().Hex(),
			"--operator", "alice", "--reason", "stuck after a partition", "--credential", credential}, extra...)...)
	}

	before := countFacts(signerLogFacts(t, s))
	wrong := f.writeSecret(t, "wrong.credential", "incorrect horse")
	if _, stderr := reset(1, wrong); !strings.Contains(stderr, "admin credential refused") {
		t.Fatalf("wrong credential: stderr %q", stderr)
	}
	if _, stderr := reset(1, f.credential, "--data", t.TempDir()); !strings.Contains(stderr, "--data does not apply to signer commands") {
		t.Fatalf("--data: stderr %q", stderr)
	}

	lg, err := embeddedlog.Open(s.logDir()) // as a running signer holds it
	if err != nil {
		t.Fatal(err)
	}
	_, stderr := reset(1, f.credential)
	lg.Close()
	if !strings.Contains(stderr, "locked by another writer") || !strings.Contains(stderr, "stop the signer first") {
		t.Fatalf("log held by another process: stderr %q", stderr)
	}
	if after := countFacts(signerLogFacts(t, s)); after != before {
		t.Fatalf("%d facts before, %d after refused commands", before, after)
	}

	stdout, _ := reset(0, f.credential)
	want := `recorded signing.admin_reset event_id=` + fixtureEvent.ID().Hex() + ` epoch=1 operator="alice" reason="stuck after a partition"`
	if strings.TrimSpace(stdout) != want {
		t.Fatalf("stdout %q, want %q", stdout, want)
	}

	stdout, _ = runCommand(t, bin, 0, "signer", "admin", "reinject", "--config", path, "--stream", fixtureEvent.Stream, "--nonce", "2",
		"--destination", "sim:bob", "--amount", "20000", "--source-chain", "evm:31337", "--source-block", "1300",
		"--source-tx", "0x"+strings.Repeat("ab", 32), "--operator", "alice", "--reason", "missed by the indexer", "--credential", f.credential)
	if !strings.Contains(stdout, "recorded signing.admin_reinjected") || !strings.Contains(stdout, "recorded signing.event_requested") {
		t.Fatalf("reinject stdout %q", stdout)
	}
	var got []twophase.SigningEvent
	for _, fact := range signerLogFacts(t, s)[twophase.TypeEventRequested] {
		if r := fact.(*twophase.EventRequested); r.Via == "admin" {
			got = append(got, r.Event)
		}
	}
	if len(got) != 1 || got[0].Source.TxHash[0] != 0xab || got[0].Source.Block != 1300 || got[0].Amount != 20000 || got[0].Nonce != 2 {
		t.Fatalf("re-injected events recorded: %+v", got)
	}
}

// silentTransport sends nothing: the signer is opened only to be looked at.
type silentTransport struct{}

func (silentTransport) Send(context.Context, twophase.PeerID, []byte) error { return nil }

// offlineLedger answers nothing, so nothing is proposed or signed.
type offlineLedger struct{}

func (offlineLedger) View(context.Context) (twophase.LedgerView, error) {
	return twophase.LedgerView{}, errOffline
}
func (offlineLedger) PayoutStatus(context.Context, twophase.Hash) (twophase.PayoutStatus, error) {
	return twophase.PayoutStatus{}, errOffline
}
func (offlineLedger) Submit(context.Context, []byte) error { return errOffline }

// runCommand runs the binary with args and fails the test unless it
// exits with wantCode.
func runCommand(t testing.TB, bin string, wantCode int, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("bridgelog %s: %v", strings.Join(args, " "), err)
	}
	if code != wantCode {
		t.Fatalf("bridgelog %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, wantCode, out.String(), errOut.String())
	}
	return out.String(), errOut.String()
}
