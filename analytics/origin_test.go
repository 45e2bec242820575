package analytics_test

import (
	"errors"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/analytics"
	"github.com/bridgelog/bridgelog/analytics/chtest"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/projections/synth"
	"github.com/bridgelog/bridgelog/topics"
)

// appendFacts writes events to lg, recorded one second apart from at,
// one append per topic.
func appendFacts(t *testing.T, lg topics.Log, at time.Time, evs ...domain.Event) {
	t.Helper()
	cat := topics.DefaultCatalog()
	byTopic := map[string][]topics.Message{}
	for i, ev := range evs {
		when := at.Add(time.Duration(i) * time.Second)
		env, topic, err := cat.Wrap(ev, topics.Meta{OccurredAt: when, RecordedAt: when})
		if err != nil {
			t.Fatal(err)
		}
		msg, err := env.Message(topics.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		byTopic[topic] = append(byTopic[topic], msg)
	}
	for topic, msgs := range byTopic {
		if _, err := lg.Append(ctxT(t), topic, msgs...); err != nil {
			t.Fatal(err)
		}
	}
}

// signerLog is a signer's log with one event requested, started,
// committed and completed, a second apart:
// two signers' logs built with it hold their facts at the same positions.
func signerLog(t *testing.T, self twophase.PeerID) topics.Log {
	lg := engines[0].open(t)
	id := twophase.Hash{7}
	appendFacts(t, lg, t0,
		twophase.SignerStarted{Signer: self, Session: 1},
		twophase.EventRequested{ID: id, Via: "source"},
		twophase.RoundStarted{EventID: id, Trigger: twophase.TriggerActivated},
		twophase.Committed{EventID: id, Hash: twophase.Hash{9}, Trigger: twophase.TriggerQuorum},
		twophase.Completed{EventID: id, Hash: twophase.Hash{9}})
	return lg
}

// countByTopic counts the rows of each stored topic, with FINAL.
func countByTopic(t *testing.T, wh analytics.Warehouse) map[string]uint64 {
	t.Helper()
	rows, err := wh.Query(ctxT(t), `SELECT topic, count() FROM `+analytics.EventsTable+` FINAL GROUP BY topic`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]uint64{}
	for rows.Next() {
		var topic string
		var n uint64
		if err := rows.Scan(&topic, &n); err != nil {
			t.Fatal(err)
		}
		out[topic] = n
	}
	return out
}

// TestLogsOfSeveralOriginsShareAWarehouse sinks a relay's log and two
// signers' logs (whose facts sit at the same positions) into one
// warehouse, each twice: every record is there once, under its origin,
// and the signing figures are each signer's.
func TestLogsOfSeveralOriginsShareAWarehouse(t *testing.T) {
	srv := chtest.Start(t)
	f := newFixture(t, srv)
	ctx := ctxT(t)
	logs := map[string]topics.Log{"": f.lg, "s1": signerLog(t, "s1"), "s2": signerLog(t, "s2")}
	for round := 0; round < 2; round++ {
		for want, lg := range logs {
			origin, err := analytics.DetectOrigin(ctx, lg)
			if err != nil || origin != want {
				t.Fatalf("origin: %q, %v; want %q", origin, err, want)
			}
			st, err := analytics.NewSink(lg, f.wh, analytics.Config{Origin: origin}).CatchUp(ctx)
			if err != nil {
				t.Fatalf("sink %q, round %d: %v", origin, round+1, err)
			}
			if (round == 0) != (st.Records > 0) {
				t.Fatalf("sink %q, round %d: %+v", origin, round+1, st)
			}
		}
	}
	relay := readLog(t, f.lg)
	byTopic := countByTopic(t, f.wh)
	var relayRows uint64
	for topic, n := range byTopic {
		switch topic {
		case topics.TopicSigning + "@s1", topics.TopicSigning + "@s2":
			if n != 5 {
				t.Errorf("%s: %d rows, want 5", topic, n)
			}
		default:
			relayRows += n
		}
	}
	if relayRows != uint64(len(relay)) || len(byTopic) < 3 {
		t.Fatalf("rows by stored topic %v: the relay's log has %d records", byTopic, len(relay))
	}
	if all := countFinal(t, f.wh, ""); all != uint64(len(relay))+10 {
		t.Fatalf("%d rows without FINAL, want %d: a second sink wrote again", all, len(relay)+10)
	}
	rows, err := analytics.Signing(ctx, f.wh)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0].Origin != analytics.AllOrigins || rows[1].Origin != "s1" || rows[2].Origin != "s2" ||
		rows[0].Events != 1 || rows[0].Commits != 2 || rows[1].Commits != 1 || rows[2].Events != 1 || rows[2].Completed != 1 {
		t.Fatalf("signing by origin: %+v", rows)
	}
	// Requested, started, committed a second apart.
	if l, w := rows[1].CommitLatencyMs, rows[1].RequestToCommitMs; l != (analytics.Percentiles{1000, 1000, 1000, 1000}) ||
		w != (analytics.Percentiles{2000, 2000, 2000, 2000}) {
		t.Fatalf("latencies of s1: commit %+v, request to commit %+v", l, w)
	}
	// One signer's log sunk under the other's origin is another log.
	_, err = analytics.NewSink(logs["s2"], f.wh, analytics.Config{Origin: "s1"}).CatchUp(ctx)
	if wrong := (*analytics.WrongLogError)(nil); !errors.As(err, &wrong) {
		t.Fatalf("s2's log sunk as s1: %v", err)
	}
}

// DetectOrigin refuses a log whose signing facts name no signer, or two.
func TestDetectOriginNeedsOneSigner(t *testing.T) {
	ctx := ctxT(t)
	nameless := engines[0].open(t)
	appendFacts(t, nameless, t0, twophase.EventRequested{ID: twophase.Hash{1}})
	if _, err := analytics.DetectOrigin(ctx, nameless); !errors.Is(err, analytics.ErrOrigin) {
		t.Fatalf("signing facts without signer_started: %v", err)
	}
	two := signerLog(t, "s1")
	appendFacts(t, two, t0, twophase.SignerStarted{Signer: "s2", Session: 1})
	if _, err := analytics.DetectOrigin(ctx, two); !errors.Is(err, analytics.ErrOrigin) {
		t.Fatalf("two signers' facts: %v", err)
	}
	relay := engines[0].open(t)
	if _, err := synth.Generate(ctx, relay, synth.Config{Events: 100, Seed: 3}, nil); err != nil {
		t.Fatal(err)
	}
	if origin, err := analytics.DetectOrigin(ctx, relay); origin != "" || err != nil {
		t.Fatalf("a relay's log: %q, %v", origin, err)
	}
	for _, bad := range []string{"a@b", " s1"} {
		if err := analytics.CheckOrigin(bad); !errors.Is(err, analytics.ErrOrigin) {
			t.Fatalf("origin %q: %v", bad, err)
		}
	}
}
