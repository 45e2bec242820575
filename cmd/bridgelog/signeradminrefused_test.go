package main

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers/signing"
)

// unpayableEvent pays an address of another network: the group refuses it.
var unpayableEvent = twophase.SigningEvent{Stream: fixtureEvent.Stream, Nonce: twophase.FirstNonce, Destination: "kaspa:qqnotasimaddress",
	Amount: 150_000, Source: fixtureEvent.Source}

// A reset of a Refused event says it is refused, which is terminal, and
// records nothing (it used to answer "unknown signing event": a policy
// refusal left no event behind).
func TestSignerAdminResetRefused(t *testing.T) {
	f := newSignerFixture(t, 3, 2)
	path := f.write(t)
	s := f.load(t)
	st, err := twophase.NewState(s.protocol)
	if err != nil {
		t.Fatal(err)
	}
	en := offlineEnv(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	facts := append(st.Start(en).Facts, st.Request(unpayableEvent, "source", en).Facts...)
	appendSignerFacts(t, s, facts)
	before := countFacts(signerLogFacts(t, s))

	_, err = runSignerAdmin(context.Background(), adminFlagsFor(f, path), resetAction(unpayableEvent.ID()))
	if !errors.Is(err, twophase.ErrEventRefused) || !strings.Contains(err.Error(), "terminal") ||
		strings.Contains(err.Error(), "unknown signing event") {
		t.Fatalf("reset of a refused event: %v, want it refused (terminal)", err)
	}
	if n := countFacts(signerLogFacts(t, s)); n != before {
		t.Fatalf("%d facts after a refused reset, %d before", n, before)
	}
}

// An unpayable event an earlier version abandoned is refused once an
// operator resets it: the signer decides the verdict before its first
// round, and its stream moves on.
func TestSignerAdminResetAbandonedUnpayable(t *testing.T) {
	f := newSignerFixture(t, 3, 2)
	path := f.write(t)
	s := f.load(t)
	id, at := unpayableEvent.ID(), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	appendSignerFacts(t, s, []twophase.Fact{
		twophase.EventRequested{Event: unpayableEvent, ID: id, Via: "source", AtNs: at},
		twophase.RoundStarted{EventID: id, Trigger: twophase.TriggerActivated, AtNs: at},
		twophase.Abandoned{EventID: id, Trigger: twophase.TriggerMaxRounds, Detail: "build failed", AtNs: at + 1},
	})
	if _, err := runSignerAdmin(context.Background(), adminFlagsFor(f, path), resetAction(id)); err != nil {
		t.Fatal(err)
	}
	lg, err := embeddedlog.Open(s.logDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	sg, err := signing.Open(context.Background(), signing.Config{Protocol: s.protocol, Log: lg, Transport: silentTransport{}, Ledger: offlineLedger{},
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := sg.Event(id)
	if e.Phase != twophase.PhaseRefused || e.Refusal.Reason != twophase.RefusedNotAnAddress {
		t.Fatalf("started after the reset: %s %+v, want Refused (not_an_address)", e.Phase, e.Refusal)
	}
	if st := sg.Status().Streams; len(st) != 1 || st[0].Next != unpayableEvent.Nonce+1 {
		t.Fatalf("streams %+v, want past the refused nonce", st)
	}
}
