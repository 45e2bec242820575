package handlers

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/evm/evmchain"
	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet"
	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet/cleftest"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

type countingStepMetrics struct{ failed map[string]int }

func (m *countingStepMetrics) StepFailed(step string) { m.failed[step]++ }

func countTypes(t *testing.T, lg topics.Log, topic, typ string) int {
	t.Helper()
	n := 0
	for _, e := range events(t, lg, topic) {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// TestDriveWaitsForARefusingSigner: while the wallet's external signer
// refuses, nothing is recorded or sent and the driver says so as one
// step_failed event (every refusal counted); when the signer signs again
// the same request goes through and the recovery is one event.
func TestDriveWaitsForARefusingSigner(t *testing.T) {
	f := newTxFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	commitEvery(ctx, f.chain, 30*time.Millisecond)
	srv, err := cleftest.Start(f.chain.Keys()[1])
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	w, err := evmwallet.Open(ctx, evmwallet.Spec{Name: "relayer", Address: f.signer.From(), External: srv.URL()}, evmwallet.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := &countingStepMetrics{failed: map[string]int{}}
	d := &TxDriver{Chain: evmchain.Signer{Client: f.client, Wallet: w}, Appender: f.app, PollInterval: 20 * time.Millisecond,
		Health: &StepHealth{Appender: f.app, Metrics: m}}
	dep := f.deposit()
	req := TxRequest{Purpose: domain.PurposeMint, Subject: dep.AggregateID(), Call: f.calls.Mint(dep)}
	srv.SetMode(cleftest.Refuse)
	for range 3 {
		_, err := d.Drive(ctx, req)
		if !errors.Is(err, ErrSigning) || !errors.Is(err, evmwallet.ErrExternalRefused) {
			t.Fatalf("drive with a refusing signer: %v", err)
		}
	}
	if n := countTypes(t, f.log, topics.TopicBridge, domain.TypeMintIntent); n != 0 {
		t.Fatalf("%d intents recorded while the signer refused", n)
	}
	if n := countTypes(t, f.log, topics.TopicChain, domain.TypeRelayStepFailed); n != 1 {
		t.Fatalf("%d step_failed events for one refusing streak, want 1", n)
	}
	if m.failed[d.SignStep()] != 3 {
		t.Fatalf("signing failures counted %v, want 3 for %s", m.failed, d.SignStep())
	}
	srv.SetMode(cleftest.Sign)
	out, err := d.Drive(ctx, req)
	if err != nil || out.Status != domain.TxSucceeded {
		t.Fatalf("drive with the signer back: %+v %v", out, err)
	}
	if n := countTypes(t, f.log, topics.TopicChain, domain.TypeRelayStepRecovered); n != 1 || d.Health.Failing(d.SignStep()) {
		t.Fatalf("%d step_recovered events after the signer came back, want 1", n)
	}
	if f.balance(t, domain.Address{0xee}) != 12345 {
		t.Fatal("deposit not minted once")
	}
}
