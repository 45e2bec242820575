package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain"
)

// runnableFixture is f as a Kaspa group with everything a running signer
// needs in its config.
func runnableFixture(t *testing.T) *signerFixture {
	f := newSignerFixture(t, 3, 2)
	kaspaFixture(t, f)
	f.cfg.signerNetConfig = signerNetConfig{Listen: "127.0.0.1:7101", Peers: map[string]string{"s2": "127.0.0.1:7102", "s3": "127.0.0.1:7103"},
		HTTP: "127.0.0.1:9471", Kaspad: &signerNode{RPC: "127.0.0.1:16610"},
		EVM: &signerChain{RPC: "http://127.0.0.1:8545", ChainID: 1337, Token: domain.Address{1}}}
	return f
}

func TestSignerSettingsDefaults(t *testing.T) {
	s, err := runnableFixture(t).load(t).settings()
	if err != nil {
		t.Fatal(err)
	}
	if s.nodeTimeout != 10*time.Second || s.stallAfter != time.Minute || s.nodePoll != time.Second || s.chainPoll != 200*time.Millisecond ||
		s.chain.Confirmations != domain.DefaultConfirmationDepth {
		t.Fatalf("defaults not taken: %+v", s)
	}
	if len(s.peers) != 2 || s.peers["s3"] != "127.0.0.1:7103" || !strings.HasPrefix(s.address, "kaspasim:") {
		t.Fatalf("peers %v, address %s", s.peers, s.address)
	}
}

func TestSignerSettingsRefused(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(t *testing.T, f *signerFixture)
		want   string
	}{
		{"sim group", func(t *testing.T, f *signerFixture) {
			sim := newSignerFixture(t, 3, 2)
			f.cfg.Group, f.cfg.PayoutKeyFile = sim.cfg.Group, "sim.payout"
			f.writeSecret(t, "sim.payout", fixtureSimSeed)
		}, "a signer process pays on a Kaspa network"},
		{"unknown peer", func(_ *testing.T, f *signerFixture) { f.cfg.Peers["s9"] = "127.0.0.1:7109" }, `peers: "s9" is not a member`},
		{"self as peer", func(_ *testing.T, f *signerFixture) { f.cfg.Peers["s1"] = "127.0.0.1:7109" }, `peers: "s1" is this signer`},
		{"peer address", func(_ *testing.T, f *signerFixture) { f.cfg.Peers["s2"] = "nowhere" }, "peers.s2"},
		{"no listen", func(_ *testing.T, f *signerFixture) { f.cfg.Listen = "" }, "listen is required"},
		{"no kaspad", func(_ *testing.T, f *signerFixture) { f.cfg.Kaspad = nil }, "kaspad.rpc is required"},
		{"bad timeout", func(_ *testing.T, f *signerFixture) { f.cfg.Kaspad.Timeout = "soon" }, `kaspad.timeout "soon"`},
		{"no token", func(_ *testing.T, f *signerFixture) { f.cfg.EVM.Token = domain.Address{} }, "evm.token are required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := runnableFixture(t)
			c.mutate(t, f)
			_, err := f.load(t).settings()
			if !errors.Is(err, ErrSignerConfig) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one that says %q", err, c.want)
			}
		})
	}
}
