package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// switchGate is a pause a test flips.
type switchGate struct{ paused atomic.Bool }

func (g *switchGate) MaySend(context.Context) error {
	if g.paused.Load() {
		return domain.ErrSendsPaused
	}
	return nil
}

// TestPausedDriverSendsNothingThenMintsOnce: a driver whose gate refuses
// signs, records and sends nothing; once the gate opens the same request
// mints once.
func TestPausedDriverSendsNothingThenMintsOnce(t *testing.T) {
	f := newTxFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	commitEvery(ctx, f.chain, 30*time.Millisecond)
	gate := &switchGate{}
	gate.paused.Store(true)
	d := &TxDriver{Chain: f.signer, Appender: f.app, PollInterval: 20 * time.Millisecond, Gate: gate}
	dep := f.deposit()
	req := TxRequest{Purpose: domain.PurposeMint, Subject: dep.AggregateID(), Call: f.calls.Mint(dep)}
	if _, err := d.Drive(ctx, req); !errors.Is(err, domain.ErrSendsPaused) {
		t.Fatalf("paused drive: %v, want ErrSendsPaused", err)
	}
	if n := len(events(t, f.log, topics.TopicBridge)); n != 0 {
		t.Fatalf("a paused driver recorded %d events", n)
	}
	gate.paused.Store(false)
	out, err := d.Drive(ctx, req)
	if err != nil || out.Status != domain.TxSucceeded {
		t.Fatalf("drive after the resume: %+v %v", out, err)
	}
	if got := f.balance(t, dep.Recipient); got != 12345 {
		t.Fatalf("recipient balance %d, want one mint of 12345", got)
	}
}

// pauseLog is a PauseReader over a state a test sets.
type pauseLog struct {
	state atomic.Value
	reads atomic.Int32
}

func (p *pauseLog) PauseState(context.Context) (domain.PauseState, error) {
	p.reads.Add(1)
	s, _ := p.state.Load().(domain.PauseState)
	return s, nil
}

// TestPauseGateSeesAPauseWithinItsInterval: the gate reads the state at
// most once per interval and refuses from the first read after a pause.
func TestPauseGateSeesAPauseWithinItsInterval(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	src := &pauseLog{}
	src.state.Store(domain.PauseState{})
	g := &PauseGate{Reader: src, Every: time.Second, Now: func() time.Time { return now }}
	ctx := context.Background()
	if err := g.MaySend(ctx); err != nil {
		t.Fatal(err)
	}
	src.state.Store(domain.PauseState{Paused: true, Operator: "alice", Reason: "drill"})
	if err := g.MaySend(ctx); err != nil || src.reads.Load() != 1 {
		t.Fatalf("within the interval: %v after %d reads, want the cached state", err, src.reads.Load())
	}
	now = now.Add(time.Second)
	if err := g.MaySend(ctx); !errors.Is(err, domain.ErrSendsPaused) {
		t.Fatalf("after the interval: %v, want ErrSendsPaused", err)
	}
}

type noHolds map[domain.LogRef]domain.Status

func (n noHolds) DepositGovernance(_ context.Context, ref domain.LogRef) (domain.Status, *domain.MintHold, error) {
	return n[ref], nil, nil
}

// TestOperatorInboxRecordsGoodAndSetsAsideBad: a good request is recorded
// and removed; a malformed or refused one is renamed .bad and the next
// one still goes on.
func TestOperatorInboxRecordsGoodAndSetsAsideBad(t *testing.T) {
	dir := t.TempDir()
	lg, err := embeddedlog.Open(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	inbox := filepath.Join(dir, "inbox")
	if err := os.MkdirAll(inbox, 0o700); err != nil {
		t.Fatal(err)
	}
	act := domain.OperatorAction{Operator: "alice", Reason: "drill", RequestID: "r1", At: 1}
	ref := domain.LogRef{ChainID: 1, TxHash: domain.Hash32{1}}
	write := func(name string, v any) {
		b, _ := json.Marshal(v)
		if s, ok := v.(string); ok {
			b = []byte(s)
		}
		if err := os.WriteFile(filepath.Join(inbox, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("1.json", "{not json")
	write("2.json", OperatorRequest{Kind: RequestRelease, Deposit: ref.DepositID(), Action: act}) // not held
	write("3.json", OperatorRequest{Kind: RequestPause, Action: act})
	in := &OperatorInbox{Dir: inbox, Appender: &Appender{Log: lg, Catalog: topics.DefaultCatalog()},
		Deposits: noHolds{ref: domain.StatusConfirmed}}
	n, err := in.Poll(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("poll: %d recorded, %v", n, err)
	}
	left, _ := filepath.Glob(filepath.Join(inbox, "*"))
	if len(left) != 2 || filepath.Ext(left[0]) != ".bad" || filepath.Ext(left[1]) != ".bad" {
		t.Fatalf("inbox after the poll: %v", left)
	}
	envs := events(t, lg, topics.TopicChain)
	if len(envs) != 1 || envs[0].Type != domain.TypeRelayPaused {
		t.Fatalf("recorded %+v, want one relay.paused", envs)
	}
}

// TestLogPauseTailsThePauses: a claim worker's pause reader folds the
// pauses and resumes on the log, each read taking only what is new.
func TestLogPauseTailsThePauses(t *testing.T) {
	lg, err := embeddedlog.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	ctx := context.Background()
	app := &Appender{Log: lg, Catalog: topics.DefaultCatalog()}
	p := &LogPause{Log: lg}
	if s, err := p.PauseState(ctx); err != nil || s.Paused {
		t.Fatalf("empty log: %+v %v", s, err)
	}
	act := domain.OperatorAction{Operator: "alice", Reason: "drill", RequestID: "1", At: 5}
	if _, err := app.Append(ctx, Cause{}, domain.ChainRescanRequested{ChainID: 1, RequestID: "x"}, domain.RelayPaused{OperatorAction: act}); err != nil {
		t.Fatal(err)
	}
	if s, err := p.PauseState(ctx); err != nil || !s.Paused || s.Operator != "alice" {
		t.Fatalf("after a pause: %+v %v", s, err)
	}
	act.RequestID = "2"
	if _, err := app.Append(ctx, Cause{}, domain.RelayResumed{OperatorAction: act}); err != nil {
		t.Fatal(err)
	}
	if s, err := p.PauseState(ctx); err != nil || s.Paused {
		t.Fatalf("after a resume: %+v %v", s, err)
	}
}
