package main

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"
)

// payoutSompi is a payout's amount: 0.3 KAS and up, so that its output's
// storage mass stays standard.
func payoutSompi(i int) uint64 { return uint64(30_000_000 + i*1_000_000) }

// TestSignerProcessesPayEachWithdrawalOnce: three signer processes,
// 2-of-3, each with its own log, store, keys and view of both chains,
// pay a run of withdrawals on kaspad simnet: every recipient is paid
// exactly once, and `signer status` shows the events completed.
// nodeUpLine is signer status's line for a Kaspa node that answers.
var nodeUpLine = regexp.MustCompile(`(?m)^\s*kaspa_node \S+: up$`)

func TestSignerProcessesPayEachWithdrawalOnce(t *testing.T) {
	c := newSignerCluster(t, clusterOptions{})
	for i := 0; i < 5; i++ {
		c.burn(payoutSompi(i))
	}
	c.waitPaid(2 * time.Minute)
	c.checkOneTemplatePerEvent()
	stdout, _ := runCommand(t, c.bin, 0, "signer", "status", "--config", c.member("s1").config)
	if !strings.Contains(stdout, "signer s1: running") || !strings.Contains(stdout, "Completed") ||
		!strings.Contains(stdout, "s2  connected") || !nodeUpLine.MatchString(stdout) {
		t.Fatalf("signer status:\n%s", stdout)
	}
}

// TestSignerProcessesSurviveKills: signer processes are killed (SIGKILL)
// at random points, at least ten times, while payouts flow and are
// started again: afterwards every payout is on the node exactly once, and
// no signer's log holds two different signed templates for one event.
func TestSignerProcessesSurviveKills(t *testing.T) {
	c := newSignerCluster(t, clusterOptions{fund: 14})
	rng := rand.New(rand.NewPCG(7, 23))
	kills := 0
	for i := 0; i < 12; i++ {
		c.burn(payoutSompi(i))
		for k := 0; k < 1+i%2; k++ {
			id := c.group.members[rng.IntN(len(c.group.members))].id
			time.Sleep(time.Duration(rng.IntN(700)) * time.Millisecond)
			c.kill(id)
			kills++
			time.Sleep(time.Duration(rng.IntN(400)) * time.Millisecond)
			c.start(id)
		}
	}
	if kills < 10 {
		t.Fatalf("only %d kills", kills)
	}
	c.waitPaid(4 * time.Minute)
	c.checkOneTemplatePerEvent()
}
