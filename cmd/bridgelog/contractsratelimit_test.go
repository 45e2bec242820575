package main

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/domain"
)

// TestRateLimitFlags: "amount per window" in ether reads to the wei; a
// zero, negative, malformed or over-precise amount and a window under a
// second are refused with contracts.ErrBadRateLimit naming the flag.
func TestRateLimitFlags(t *testing.T) {
	for s, want := range map[string]string{"100": "100000000000000000000", "0.5": "500000000000000000",
		".25": "250000000000000000", "0.000000000000000001": "1"} {
		if wei, err := parseEther(s); err != nil || wei.String() != want {
			t.Errorf("parseEther(%q) = %v, %v; want %s", s, wei, err, want)
		}
	}
	for _, bad := range []string{"", "0", "0.0", "-1", "+1", "1e18", "1.2.3", "0x10", "0.0000000000000000001", " 1"} {
		if _, err := parseEther(bad); !errors.Is(err, contracts.ErrBadRateLimit) {
			t.Errorf("parseEther(%q): %v, want ErrBadRateLimit", bad, err)
		}
	}
	l, err := rateLimitFlags{ether: "100", window: 24 * time.Hour}.limit("mint-")
	if err != nil || l.Capacity.String() != "100000000000000000000" || l.Window() != 24*time.Hour {
		t.Fatalf("100 per 24h: %v (%v)", l, err)
	}
	if _, err := (rateLimitFlags{ether: "1", window: 500 * time.Millisecond}).limit("claim-"); !errors.Is(err, contracts.ErrBadRateLimit) ||
		!strings.Contains(err.Error(), "--claim-window 500ms") {
		t.Fatalf("a sub-second window: %v", err)
	}
}

// TestDeployRefusesBadRateLimits: contracts deploy refuses a zero or
// negative limit before dialling anything.
func TestDeployRefusesBadRateLimits(t *testing.T) {
	base := deployOptions{rpc: "http://127.0.0.1:1", from: "0x1111111111111111111111111111111111111111", external: "http://127.0.0.1:1",
		out: filepath.Join(t.TempDir(), "relay.json"), kaspaPrefix: "kaspa", kaspaMinSompi: domain.MinKaspaPayoutSompi,
		mintLimit: rateLimitFlags{"100", time.Hour}, claimLimit: rateLimitFlags{"100", time.Hour}}
	for name, c := range map[string]struct {
		tweak func(*deployOptions)
		want  string
	}{
		"zero mint limit":      {func(o *deployOptions) { o.mintLimit.ether = "0" }, `--mint-limit "0"`},
		"negative claim limit": {func(o *deployOptions) { o.claimLimit.ether = "-5" }, `--claim-limit "-5"`},
		"zero claim window":    {func(o *deployOptions) { o.claimLimit.window = 0 }, "--claim-window 0s"},
	} {
		o := base
		c.tweak(&o)
		err := runDeploy(context.Background(), o, io.Discard, quietLogger())
		if !errors.Is(err, ErrDeploy) || !errors.Is(err, contracts.ErrBadRateLimit) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrDeploy and ErrBadRateLimit naming %s", name, err, c.want)
		}
	}
}
