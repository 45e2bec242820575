package main

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
)

// TestRelayRefusesAnotherBridgesLog: the first relay on a log records the
// config's chains and contracts in it; a relay started on that log with a
// config naming other contracts or another chain is refused before it
// does anything, with an error naming what the log records and what the
// config says; the first config still runs on it, and the record survives
// a replay (it is an event in the log).
func TestRelayRefusesAnotherBridgesLog(t *testing.T) {
	tb := newTestBridge(t, 50*time.Millisecond, 1, nil)
	tb.lock(0, ether(10))
	tb.until("a deposit minted", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 1
	})
	bound, err := tb.b.reader.Bindings(context.Background())
	want := domain.RelayBound{ChainID: tb.chain.ChainID(), Distributor: tb.cfg.Distributor, ExecChainID: tb.chain.ChainID(), Token: tb.cfg.Token}
	if err != nil || len(bound) != 1 || bound[0] != want {
		t.Fatalf("bindings %v (%v), want [%v]", bound, err, want)
	}
	tb.close()
	first := tb.cfg
	other := domain.Address{0xee}
	for _, c := range []struct {
		name  string
		tweak func(*relayConfig)
		names []string
	}{
		{"another token", func(c *relayConfig) { c.Token = other },
			[]string{"the log records " + want.String(), "token " + other.Hex()}},
		{"another distributor", func(c *relayConfig) { c.Distributor = other },
			[]string{"the log records " + want.String(), "distributor " + other.Hex()}},
	} {
		tb.cfg = first
		c.tweak(&tb.cfg)
		tb.open()
		err := tb.b.run(context.Background())
		var be *domain.BoundElsewhereError
		if !errors.Is(err, domain.ErrBoundElsewhere) || !errors.As(err, &be) || be.Recorded != want {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, n := range c.names {
			if !strings.Contains(err.Error(), n) {
				t.Fatalf("%s: %q does not name %q", c.name, err, n)
			}
		}
		scrape := httptest.NewRecorder()
		tb.metrics.Handler().ServeHTTP(scrape, httptest.NewRequest("GET", "/metrics", nil))
		if !strings.Contains(scrape.Body.String(), `bridgelog_relay_step_failures_total{step="bind"} 1`) {
			t.Fatalf("%s: no bind failure counted", c.name)
		}
		tb.close()
	}
	tb.cfg = first
	tb.open()
	tb.lock(1, ether(20))
	tb.until("the first config runs on", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 2
	})
	assertReplayEqual(t, tb)
	if bound, err := tb.b.reader.Bindings(context.Background()); err != nil || len(bound) != 1 {
		t.Fatalf("bindings after the refusals: %v (%v)", bound, err)
	}
}
