package main

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/adapters/childproc"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode/kaspadtest"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers/signingsource"
)

// TestSignerPartitionedAndHealed: s3's links are cut while payouts flow;
// s1 and s2 pay every one of them and s3 signs none. Once healed, s3
// catches up (the events are Completed at s3 too) and signs the payouts
// that follow. Every payout is paid once.
func TestSignerPartitionedAndHealed(t *testing.T) {
	c := newSignerCluster(t, clusterOptions{})
	c.partition("s3", true)
	var cut []int
	for i := 0; i < 3; i++ {
		cut = append(cut, c.burn(payoutSompi(i)))
	}
	c.waitPaid(2 * time.Minute)
	if doc, err := c.httpStatus("s1"); err != nil || peerConnected(doc, "s3") {
		t.Fatalf("s1's status shows s3 connected through the cut (%v): %+v", err, doc.Peers)
	}
	signed := map[string]map[twophase.Hash][]twophase.Hash{}
	for _, id := range []string{"s1", "s2", "s3"} {
		signed[id] = c.signedTemplates(id)
	}
	s3Knew := c.requested("s3")
	for _, i := range cut {
		ev := c.eventID(i)
		if !s3Knew[ev] {
			t.Errorf("s3's own source did not request payout %d while cut off", i)
		}
		if len(signed["s3"][ev]) > 0 {
			t.Errorf("s3 signed event %s (payout %d) while cut off", ev.Short(), i)
		}
		if len(signed["s1"][ev]) == 0 || len(signed["s2"][ev]) == 0 {
			t.Errorf("payout %d paid without both s1's and s2's signatures", i)
		}
	}

	c.partition("s3", false)
	waitUntil(t, 40*time.Second, "s3 has every event of the cut Completed", func() bool {
		doc, err := c.httpStatus("s3")
		return err == nil && allInPhase(doc, c.eventIDs(cut), "Completed")
	})
	doc := c.cliStatus("s3")
	if !allInPhase(doc, c.eventIDs(cut), "Completed") || !doc.Running {
		t.Fatalf("signer status --json of s3: %+v", doc.Events)
	}

	var after []int
	for i := 3; i < 5; i++ {
		after = append(after, c.burn(payoutSompi(i)))
	}
	c.waitPaid(2 * time.Minute)
	waitUntil(t, 20*time.Second, "s3 signs the payouts after the heal", func() bool {
		s3 := c.signedTemplates("s3")
		for _, i := range after {
			if len(s3[c.eventID(i)]) == 0 {
				return false
			}
		}
		return true
	})
	c.checkOneTemplatePerEvent()
}

// TestSignerNodeLaggingAndDown: s2 has its own kaspad node, a peer of the
// mining node through a link the test stalls. While its node lags (its
// DAA score stands still) s2 records the kaspa_node step failing because
// the score has not moved, reports the node down in /metrics and /status
// and signs nothing, while s1 and s3 pay. When the link carries again s2
// records the recovery. Then its node is stopped: an outage, recorded,
// nothing signed; started again: recovered, and s2 signs again. Every
// payout is paid once.
//
// The stall is the link's rather than kaspadtest's Isolate: Isolate
// restarts the node, so the connection loss and the stall would fall in
// one failure streak, recorded once with the connection's reason.
func TestSignerNodeLaggingAndDown(t *testing.T) {
	var link *linkProxy
	var own *kaspadtest.Node
	c := newSignerCluster(t, clusterOptions{stallAfter: "3s", nodes: func(mining *kaspadtest.Node) map[string]*kaspadtest.Node {
		link = startLinkProxy(t, mining.P2P)
		own = kaspadtest.StartNode(t, kaspadtest.Options{Peer: &kaspadtest.Node{P2P: link.Addr()}})
		return map[string]*kaspadtest.Node{"s2": own}
	}})
	waitUntil(t, 30*time.Second, "s2's node up", func() bool { return c.gauge("s2", "bridgelog_kaspa_node_up") == 1 })
	// Failure streaks so far (none, unless the node was slow to sync).
	failed, recovered := c.nodeHealth("s2")
	f0, r0 := len(failed), len(recovered)

	// Lagging: the node answers, its score stands still.
	link.Stall()
	waitUntil(t, 20*time.Second, "s2 records its node's score standing still", func() bool {
		failed, _ := c.nodeHealth("s2")
		return len(failed) == f0+1 && strings.Contains(failed[f0].Reason, "has not moved")
	})
	if up := c.gauge("s2", "bridgelog_kaspa_node_up"); up != 0 {
		t.Fatalf("s2's node stalled, bridgelog_kaspa_node_up %v", up)
	}
	if doc, err := c.httpStatus("s2"); err != nil || nodeUp(doc, stepKaspaNode) {
		t.Fatalf("s2's node stalled, /status nodes %+v (%v)", doc.Nodes, err)
	}
	before := countSigned(c.signedTemplates("s2"))
	lagged := []int{c.burn(payoutSompi(0)), c.burn(payoutSompi(1))}
	c.waitPaid(2 * time.Minute)
	if n := countSigned(c.signedTemplates("s2")); n != before {
		t.Fatalf("s2 signed %d templates while its node lagged", n-before)
	}
	s1, s3, s2Knew := c.signedTemplates("s1"), c.signedTemplates("s3"), c.requested("s2")
	for _, i := range lagged {
		if len(s1[c.eventID(i)]) == 0 || len(s3[c.eventID(i)]) == 0 {
			t.Fatalf("payout %d paid without both s1's and s3's signatures", i)
		}
		if !s2Knew[c.eventID(i)] {
			t.Fatalf("s2's source did not request payout %d while its node lagged", i)
		}
	}
	if failed, recovered := c.nodeHealth("s2"); len(failed) != f0+1 || len(recovered) != r0 {
		t.Fatalf("s2's node health changed while it lagged: failed %+v, recovered %+v", failed[f0:], recovered[r0:])
	}

	link.Heal()
	// Recovery waits for the node to sync the blocks mined while it
	// stalled: slower on a busy machine, hence the longer bound.
	waitUntil(t, time.Minute, "s2 records its node recovered", func() bool {
		_, recovered := c.nodeHealth("s2")
		return len(recovered) == r0+1 && c.gauge("s2", "bridgelog_kaspa_node_up") == 1
	})

	// Down: the node does not answer at all.
	own.Stop()
	waitUntil(t, 20*time.Second, "s2 records its node down", func() bool {
		failed, _ := c.nodeHealth("s2")
		return len(failed) == f0+2 && c.gauge("s2", "bridgelog_kaspa_node_up") == 0
	})
	if failed, _ := c.nodeHealth("s2"); !strings.Contains(failed[f0+1].Reason, kaspanode.ErrUnavailable.Error()) {
		t.Fatalf("s2's node down, recorded reason %q", failed[f0+1].Reason)
	}
	before = countSigned(c.signedTemplates("s2"))
	down := c.burn(payoutSompi(2))
	c.waitPaid(2 * time.Minute)
	if n := countSigned(c.signedTemplates("s2")); n != before {
		t.Fatalf("s2 signed %d templates while its node was down", n-before)
	}
	own.Start()
	waitUntil(t, time.Minute, "s2 records its node recovered again", func() bool {
		_, recovered := c.nodeHealth("s2")
		return len(recovered) == r0+2 && c.gauge("s2", "bridgelog_kaspa_node_up") == 1
	})

	back := c.burn(payoutSompi(3))
	c.waitPaid(2 * time.Minute)
	waitUntil(t, 20*time.Second, "s2 signs again once its node is back", func() bool {
		return len(c.signedTemplates("s2")[c.eventID(back)]) > 0
	})
	if s2 := c.signedTemplates("s2"); len(s2[c.eventID(down)]) > 0 {
		t.Fatalf("s2 signed payout %d, paid while its node was down", down)
	}
	c.checkOneTemplatePerEvent()
}

// TestSignerNodeOnAnotherNetwork: s2's kaspad.rpc is a kaspad testnet
// node, s3's the EVM node's JSON-RPC address. Both start, record the
// kaspa_node step failing with the dial's reason, serve /status with the
// node not up and sign nothing: a payout waits (s1 alone is no quorum).
// Pointed at the simnet node and restarted, s2 pays it with s1.
func TestSignerNodeOnAnotherNetwork(t *testing.T) {
	c := newSignerCluster(t, clusterOptions{skip: []string{"s2", "s3"}})
	testnet := startTestnetKaspad(t)
	evmAddr := strings.TrimPrefix(c.chain.URL(), "http://")
	c.editConfig("s2", func(cfg *signerConfig) { cfg.Kaspad.RPC = testnet })
	c.editConfig("s3", func(cfg *signerConfig) { cfg.Kaspad.RPC = evmAddr })
	c.start("s2")
	c.start("s3")
	i := c.burn(payoutSompi(0))
	for _, w := range []struct{ id, reason string }{
		{"s2", "kaspa node is on another network: node " + testnet + " is on Testnet"}, {"s3", "ledger unavailable"},
	} {
		// The gauge is there from the signer's first poll of its node on
		// (its log is open by then).
		waitUntil(t, 30*time.Second, w.id+" reports its node down, records it failing and requests the payout", func() bool {
			if c.gauge(w.id, "bridgelog_kaspa_node_up") != 0 {
				return false
			}
			failed, _ := c.nodeHealth(w.id)
			return len(failed) > 0 && len(c.rawFacts(w.id, twophase.TypeEventRequested)) > 0
		})
		failed, _ := c.nodeHealth(w.id)
		if len(failed) != 1 || !strings.Contains(failed[0].Reason, w.reason) {
			t.Fatalf("%s's node failures: %+v, want one whose reason says %q", w.id, failed, w.reason)
		}
		t.Logf("%s: kaspa_node failing: %s", w.id, failed[0].Reason)
		doc, err := c.httpStatus(w.id)
		if err != nil || nodeUp(doc, stepKaspaNode) || !nodeUp(doc, stepEVMNode) {
			t.Fatalf("%s's /status nodes %+v (%v): want kaspa_node not up, evm_node up", w.id, doc.Nodes, err)
		}
	}
	// s1 proposes alone: its round ends without a quorum.
	waitUntil(t, 20*time.Second, "s1's round for the payout fails without a quorum", func() bool {
		return len(c.rawFacts("s1", twophase.TypeRoundFailed)) > 0
	})
	for _, id := range []string{"s1", "s2", "s3"} {
		if n := countSigned(c.signedTemplates(id)); n != 0 {
			t.Fatalf("%s signed %d templates without a quorum of usable nodes", id, n)
		}
	}
	if got := c.received(i); len(got) != 0 {
		t.Fatalf("payout %d paid (%v) with one signer's node", i, got)
	}

	c.stop("s2")
	c.editConfig("s2", func(cfg *signerConfig) { cfg.Kaspad.RPC = c.node.RPC })
	c.start("s2")
	c.waitPaid(2 * time.Minute)
	c.checkOneTemplatePerEvent()
}

// TestSignerStreamHoleResumes: every signer's EVM node hides the log of
// burn 2 (a JSON-RPC proxy drops it from eth_getLogs answers). Burns 1 to
// 4: burn 1 is paid; the stream stops at the hole, nonce 2, with 3 and 4
// waiting, unpaid. An unauthenticated POST /signing-events is refused
// (401) and recorded, a request for a burn that does not exist refused
// (422, no_receipt); the operator's authenticated request for burn 2 is
// proven on the signer's node (the receipt is not hidden) and the stream
// resumes: 2, 3 and 4 are each paid once.
func TestSignerStreamHoleResumes(t *testing.T) {
	const hole = 2 // the burn id hidden
	var hider *logHider
	c := newSignerCluster(t, clusterOptions{evmRPC: func(url string) string {
		hider = startLogHider(t, url, hole)
		return hider.URL()
	}})
	for i := 0; i < 4; i++ {
		c.burn(payoutSompi(i))
	}
	stream := c.signingEvent(0).Stream
	blockedAtHole := func(s statusStream) bool { return s.Blocked && s.Next == hole && s.Pending == 2 }
	waitUntil(t, time.Minute, "burn 1 paid and every signer's stream blocked at the hole", func() bool {
		return c.everyStream(stream, blockedAtHole) && len(c.received(0)) == 1
	})
	if doc := c.cliStatus("s2"); !blockedAtHole(streamIn(doc, stream)) {
		t.Fatalf("signer status --json of s2: streams %+v", doc.Streams)
	}
	if hider.hidden() == 0 {
		t.Fatal("the proxy hid no log")
	}
	for i := 1; i < 4; i++ {
		if got := c.received(i); len(got) != 0 {
			t.Fatalf("burn %d paid (%v) behind the hole", i+1, got)
		}
	}

	ev := c.signingEvent(hole - 1)
	req := c.signingRequest(ev)
	if code, ans := c.submit("s1", req, ""); code != http.StatusUnauthorized || ans.Reason != "unauthenticated" {
		t.Fatalf("unauthenticated POST /signing-events: %d %+v", code, ans)
	}
	if !c.refusedOnLog("s1", "unauthenticated") {
		t.Fatal("s1 did not record the unauthenticated request")
	}
	credential := c.credential()
	bogus := req
	bogus.Source.TxHash = common.BytesToHash(crypto.Keccak256([]byte("no such burn"))).Hex()
	if code, ans := c.submit("s1", bogus, credential); code != http.StatusUnprocessableEntity || ans.Reason != "no_receipt" {
		t.Fatalf("POST /signing-events of a burn that does not exist: %d %+v", code, ans)
	}
	if !c.refusedOnLog("s1", signingsource.ErrNoReceipt.Error()) {
		t.Fatal("s1 did not record the request for a burn that does not exist")
	}
	if !c.everyStream(stream, blockedAtHole) {
		t.Fatal("a refused request moved a stream")
	}

	code, ans := c.submit("s1", req, credential)
	if code != http.StatusOK || ans.EventID != ev.ID().Hex() {
		t.Fatalf("the operator's POST /signing-events for burn %d: %d %+v", hole, code, ans)
	}
	c.waitPaid(2 * time.Minute)
	c.checkOneTemplatePerEvent()
	waitUntil(t, 20*time.Second, "every signer's stream past burn 4", func() bool {
		return c.everyStream(stream, func(s statusStream) bool { return s.Next == 5 && !s.Blocked })
	})
	via := map[string]int{}
	for _, f := range c.rawFacts("s1", twophase.TypeEventRequested) {
		if r := f.(*twophase.EventRequested); r.ID == ev.ID() {
			via[r.Via]++
		}
	}
	if via[signingsource.ViaRPC] != 1 || via[signingsource.ViaSource] != 0 {
		t.Fatalf("s1 requested the hole's event %v, want once via %s", via, signingsource.ViaRPC)
	}
}

// startTestnetKaspad runs a kaspad of another network than the group's
// (testnet, no peers, no DNS seeds) and returns its RPC address once it
// answers.
func startTestnetKaspad(t *testing.T) string {
	t.Helper()
	bins := kaspadtest.Build(t)
	dir := t.TempDir()
	rpc, err := childproc.FreeLoopbackAddr()
	if err != nil {
		t.Fatal(err)
	}
	p2p, err := childproc.FreeLoopbackAddr()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "kaspad.out")
	p, err := childproc.Start(bins.Kaspad, []string{"--testnet", "--utxoindex", "--appdir=" + filepath.Join(dir, "kaspad"),
		"--rpclisten=" + rpc, "--listen=" + p2p, "--nodnsseed", "--connect=127.0.0.1:1"}, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("testnet kaspad:\n%s", childproc.Tail(out, 20))
		}
		_ = p.Stop(30 * time.Second)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		s, err := kaspanode.Open(ctx, rpc, 2*time.Second)
		if err == nil {
			_, err = s.Info(ctx)
			s.Close()
			if err == nil {
				return rpc
			}
		}
		if p.Exited() || ctx.Err() != nil {
			t.Fatalf("testnet kaspad on %s did not answer: %v\n%s", rpc, err, childproc.Tail(out, 20))
		}
		time.Sleep(200 * time.Millisecond)
	}
}
