package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet"
	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet/cleftest"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// externalWallets moves a test bridge's relayer and claim wallets into an
// external signer: the config names addresses and the signer's endpoint
// only, on a chain not marked as a dev chain.
func externalWallets(t *testing.T, c *relayConfig) *cleftest.Server {
	t.Helper()
	srv, err := cleftest.Start(devchain.DevKey(devRelayer), devchain.DevKey(devClaim0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	spec := func(i int) evmwallet.Spec {
		return evmwallet.Spec{Address: domain.Address(crypto.PubkeyToAddress(devchain.DevKey(i).PublicKey)), External: srv.URL()}
	}
	c.DevChain, c.RelayerKey, c.ClaimKeys = false, "", nil
	c.Wallets = &relayWallets{Relayer: spec(devRelayer), Claim: []evmwallet.Spec{spec(devClaim0)}}
	return srv
}

// TestExternalSignerRelay: a relay whose relayer and claim wallets are
// an external signer (the clef protocol) mints a deposit and claims a
// withdrawal through it. While the signer refuses, nothing is sent, the
// wallet's failure is one relay.step_failed event and counted; switched
// back, the relay records the recovery and mints what waited, once.
func TestExternalSignerRelay(t *testing.T) {
	var srv *cleftest.Server
	tb := newTestBridge(t, 50*time.Millisecond, 1, func(c *relayConfig) { srv = externalWallets(t, c) })
	relayer := crypto.PubkeyToAddress(devchain.DevKey(devRelayer).PublicKey)
	claimer := crypto.PubkeyToAddress(devchain.DevKey(devClaim0).PublicKey)
	tb.lock(0, ether(10))
	tb.until("deposit minted", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 1
	})
	tb.burn(0, ether(4))
	tb.until("withdrawal claimed", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Withdrawals, domain.StatusExecuted) == 1
	})
	if srv.Signed(relayer) < 2 || srv.Signed(claimer) != 1 {
		t.Fatalf("signer signed %d for the relayer (mint, anchor) and %d for the claim wallet (claim)", srv.Signed(relayer), srv.Signed(claimer))
	}

	srv.SetMode(cleftest.Refuse)
	tb.lock(0, ether(3))
	ctx := context.Background()
	asked := srv.Asked()
	deadline := time.Now().Add(60 * time.Second)
	for srv.Asked() < asked+3 {
		if time.Now().After(deadline) {
			t.Fatal("the relay never asked the refusing signer to mint the second deposit")
		}
		_ = tb.b.relay.Round(ctx)
		time.Sleep(50 * time.Millisecond)
	}
	if n := countEnvelopes(t, tb.log, topics.TopicBridge, domain.TypeMintIntent); n != 1 {
		t.Fatalf("%d mint intents, want only the first deposit's: nothing is recorded while the signer refuses", n)
	}
	if n := countEnvelopes(t, tb.log, topics.TopicChain, domain.TypeRelayStepFailed); n != 1 {
		t.Fatalf("%d relay.step_failed events for one refusing signer, want 1", n)
	}
	srv.SetMode(cleftest.Sign)
	tb.until("deposit minted after the signer came back", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 2
	})
	if n := countEnvelopes(t, tb.log, topics.TopicChain, domain.TypeRelayStepRecovered); n != 1 {
		t.Fatalf("%d relay.step_recovered events, want 1", n)
	}
	scrape := httptest.NewRecorder()
	tb.metrics.Handler().ServeHTTP(scrape, httptest.NewRequest("GET", "/metrics", nil))
	want := `bridgelog_relay_step_failures_total{step="sign:` + domain.Address(relayer).Hex() + `"}`
	if !strings.Contains(scrape.Body.String(), want) {
		t.Fatalf("metrics lack %s", want)
	}
	assertChainPaidOnce(t, tb.users, 2, 1)
}
