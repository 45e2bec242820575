package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/childproc"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// TestSignerStartsWithNodesDown: s2 starts while nothing listens where
// its config puts its EVM node and its Kaspa node (s3 never runs, so
// every payout needs s2). At once it serves /healthz as 503 naming both
// nodes, their addresses and errors, /metrics with both nodes down, the
// console and `signer status` showing the outage, and it links with s1.
// A burn is proposed by s1 and not even requested by s2, which has not
// seen it. The EVM node comes up (a proxy to the chain on its port):
// s2 requests the burn, and /healthz names only the Kaspa node. The
// Kaspa node comes up: /healthz answers 200, and s1 and s2 pay the burn
// without a restart. Each node's outage is one failure and one recovery
// on s2's log, and one line each in its output (not a warning per
// proposal it could not prove meanwhile).
func TestSignerStartsWithNodesDown(t *testing.T) {
	c := newSignerCluster(t, clusterOptions{skip: []string{"s2", "s3"}})
	ports, err := childproc.FreeLoopbackPorts(2)
	if err != nil {
		t.Fatal(err)
	}
	evmAddr, kaspaAddr := fmt.Sprintf("127.0.0.1:%d", ports[0]), fmt.Sprintf("127.0.0.1:%d", ports[1])
	evmURL := "http://" + evmAddr
	c.editConfig("s2", func(cfg *signerConfig) { cfg.EVM.RPC, cfg.Kaspad.RPC = evmURL, kaspaAddr })
	c.start("s2")
	s2 := c.member("s2")

	waitUntil(t, 20*time.Second, "s2's /healthz answers 503 naming both nodes", func() bool {
		code, body := getHealthz(s2.http)
		return code == http.StatusServiceUnavailable && strings.Contains(body, "evm node "+evmURL+" down: ") &&
			strings.Contains(body, "connection refused") && strings.Contains(body, "kaspa node "+kaspaAddr+" down: ledger unavailable: ")
	})
	_, body := getHealthz(s2.http)
	t.Logf("s2 /healthz with both nodes down:\n%s", body)
	for _, g := range []string{"bridgelog_evm_node_up", "bridgelog_kaspa_node_up"} {
		waitUntil(t, 10*time.Second, "s2's /metrics has "+g+" 0", func() bool { return c.gauge("s2", g) == 0 })
	}
	waitUntil(t, 20*time.Second, "s1 and s2 link", func() bool {
		d1, err1 := c.httpStatus("s1")
		d2, err2 := c.httpStatus("s2")
		return err1 == nil && err2 == nil && peerConnected(d1, "s2") && peerConnected(d2, "s1")
	})
	checkNodesShownDown(t, c, map[string]string{stepEVMNode: evmURL, stepKaspaNode: kaspaAddr})

	i := c.burn(payoutSompi(0))
	waitUntil(t, 30*time.Second, "s1's round for the burn fails without s2", func() bool {
		return len(c.rawFacts("s1", twophase.TypeRoundFailed)) > 0
	})
	if c.requested("s2")[c.eventID(i)] || countSigned(c.signedTemplates("s2")) != 0 {
		t.Fatal("s2 requested or signed the burn while its EVM node was down")
	}

	startLinkProxyOn(t, evmAddr, strings.TrimPrefix(c.chain.URL(), "http://"))
	waitUntil(t, time.Minute, "s2 requests the burn, /healthz names only the Kaspa node", func() bool {
		code, body := getHealthz(s2.http)
		return c.requested("s2")[c.eventID(i)] && code == http.StatusServiceUnavailable &&
			!strings.Contains(body, "evm node") && strings.Contains(body, "kaspa node "+kaspaAddr) &&
			c.gauge("s2", "bridgelog_evm_node_up") == 1
	})
	if n := countSigned(c.signedTemplates("s2")); n != 0 {
		t.Fatalf("s2 signed %d templates while its Kaspa node was down", n)
	}

	startLinkProxyOn(t, kaspaAddr, c.node.RPC)
	waitUntil(t, time.Minute, "s2's /healthz answers 200", func() bool {
		code, body := getHealthz(s2.http)
		return code == http.StatusOK && body == "ok"
	})
	c.waitPaid(2 * time.Minute)
	if len(c.signedTemplates("s2")[c.eventID(i)]) == 0 {
		t.Fatal("the burn was paid without s2's signature (s3 never ran)")
	}
	for _, id := range []string{"s1", "s2"} { // s3 never ran: no log
		for ev, hashes := range c.signedTemplates(id) {
			for _, h := range hashes[1:] {
				if h != hashes[0] {
					t.Fatalf("%s signed two templates for event %s", id, ev.Short())
				}
			}
		}
	}
	if doc, err := c.httpStatus("s2"); err != nil || !nodeUp(doc, stepEVMNode) || !nodeUp(doc, stepKaspaNode) {
		t.Fatalf("s2's /status nodes %+v (%v), want both up", doc.Nodes, err)
	}
	checkOneOutage(t, c, s2)
}

// getHealthz is GET /healthz's status and body (0 when nothing answers).
func getHealthz(addr string) (int, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/healthz", nil)
	if err != nil {
		return 0, err.Error()
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// checkNodesShownDown checks that s2's `signer status` (text and JSON)
// and console page show each node (name → address) down, with why.
func checkNodesShownDown(t *testing.T, c *signerCluster, nodes map[string]string) {
	t.Helper()
	s2 := c.member("s2")
	doc := c.cliStatus("s2")
	for name, addr := range nodes {
		found := false
		for _, n := range doc.Nodes {
			if n.Name == name {
				found = true
				if n.Up || n.Address != addr || n.Error == "" || n.Since == nil {
					t.Fatalf("signer status --json node %+v, want %s at %s down with since and error", n, name, addr)
				}
			}
		}
		if !found {
			t.Fatalf("signer status --json has no node %s: %+v", name, doc.Nodes)
		}
	}
	text, _ := runCommand(t, c.bin, 0, "signer", "status", "--config", s2.config)
	page := getPage(t, "http://"+s2.http+"/")
	for name, addr := range nodes {
		if want := name + " " + addr + ": DOWN for "; !strings.Contains(text, want) {
			t.Fatalf("signer status does not show %q:\n%s", want, text)
		}
		want := `<span data-node="` + name + `" class="bad">` + name + ` <code>` + addr + `</code>: DOWN since `
		if !strings.Contains(page, want) {
			t.Fatalf("the console does not show %q:\n%s", want, page)
		}
	}
}

func getPage(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b)
}

// checkOneOutage checks that each node's outage is one failure and one
// recovery on the member's log and one line each in its output, and no
// warning per unproven event.
func checkOneOutage(t *testing.T, c *signerCluster, m devSigner) {
	t.Helper()
	out, err := os.ReadFile(filepath.Join(m.dir, "signer.out"))
	if err != nil {
		t.Fatal(err)
	}
	// A peer's proposal seen while the EVM node was down is not a warning
	// per event: the node's outage was said once.
	if strings.Contains(string(out), `level=WARN msg="a peer's event does not prove`) {
		t.Fatalf("%s warned of unproven events while its EVM node was down", m.id)
	}
	if !strings.Contains(string(out), "source prover unavailable") {
		t.Fatalf("%s never tried to prove s1's proposal while its EVM node was down", m.id)
	}
	for _, step := range []string{stepEVMNode, stepKaspaNode} {
		failed, recovered := c.stepHealth(m.id, step)
		if len(failed) != 1 || len(recovered) != 1 {
			t.Fatalf("%s on %s's log: failed %+v, recovered %+v, want one each", step, m.id, failed, recovered)
		}
		for _, msg := range []string{"step failing", "step recovered"} {
			n := 0
			for _, line := range strings.Split(string(out), "\n") {
				if strings.Contains(line, msg) && strings.Contains(line, "step="+step) {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("%d %q lines for %s in %s's output, want 1", n, msg, step, m.id)
			}
		}
	}
}
