package main

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// TestMintAndClaimWaitForTheRateLimit: the token's bucket holds a deposit
// and a half, the distributor's a claim and a half, both refilling in a
// few blocks. The relay's mints and claims that do not fit wait (a wait on
// the rate limit is a relay.step_failed / relay.step_recovered pair, no
// failure is recorded) and each deposit is minted and each withdrawal paid
// exactly once.
func TestMintAndClaimWaitForTheRateLimit(t *testing.T) {
	tb := newTestBridge(t, 50*time.Millisecond, 1, func(c *relayConfig) { c.BatchMaxSize = 3; c.BatchMaxWait = "100ms" })
	ctx := context.Background()
	admin := bind.NewKeyedTransactor(devchain.DevKey(devAdmin), big.NewInt(devchain.ChainID))
	admin.Context = ctx
	for addr, l := range map[domain.Address]contracts.RateLimit{
		tb.cfg.Token:       {Capacity: ether(60), PerSecond: ether(8)},
		tb.cfg.Distributor: {Capacity: ether(15), PerSecond: ether(2)},
	} {
		tx, err := contracts.SetRateLimit(admin, tb.chain.Client(), common.Address(addr), l)
		if err != nil {
			t.Fatal(err)
		}
		tb.mined(tx.Hash())
	}
	for range 3 {
		tb.lock(0, ether(40))
	}
	tb.until("deposits minted", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 3
	})
	for range 3 {
		tb.burn(0, ether(10))
	}
	s := tb.until("withdrawals paid", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Withdrawals, domain.StatusExecuted) == 3
	})
	if statusCount(s.Deposits, domain.StatusFailed)+statusCount(s.Withdrawals, domain.StatusFailed) != 0 {
		t.Fatalf("deposits %v, withdrawals %v: a rate-limited item failed", s.Deposits, s.Withdrawals)
	}
	assertChainPaidOnce(t, tb.users, 3, 3)
	waits := map[string]int{}
	for _, e := range logEnvelopes(t, tb.log, topics.TopicChain, domain.TypeRelayStepFailed) {
		var f domain.RelayStepFailed
		if err := topics.DecodePayload(e.Payload, &f); err != nil {
			t.Fatal(err)
		}
		if p, _, ok := strings.Cut(strings.TrimPrefix(f.Step, "rate_limit:"), ":"); ok && strings.HasPrefix(f.Step, "rate_limit:") {
			waits[p]++
		}
	}
	if waits["mint"] == 0 || waits["claim"] == 0 {
		t.Fatalf("rate-limit waits recorded %v, want mints and claims that waited", waits)
	}
	if n := countEnvelopes(t, tb.log, topics.TopicChain, domain.TypeRelayStepRecovered); n < waits["mint"]+waits["claim"] {
		t.Fatalf("%d relay.step_recovered for %v waits: every wait ended", n, waits)
	}
}
