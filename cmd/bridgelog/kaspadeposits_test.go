package main

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode/kaspadtest"
	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// TestKaspaDepositAddressCommand: deposit-address prints the recipient's
// deposit address under the group of any member's config, the one the
// kaspa package makes; refuses a malformed recipient, the zero address,
// a mixed-case address with a bad checksum and a group on the simulated
// network; --register appends the address's issue to the log, once
// however often it is registered; status counts the deposits by status.
func TestKaspaDepositAddressCommand(t *testing.T) {
	g, err := writeDevSignerGroup(devGroupSpec{dir: t.TempDir(), members: 3, quorum: 2, kaspadRPC: []string{"127.0.0.1:16110"}})
	if err != nil {
		t.Fatal(err)
	}
	var keys [][]byte
	for _, m := range g.members {
		pk, err := kaspa.PublicKey(m.payout)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, pk)
	}
	d, err := kaspa.NewDeposits("kaspa-simnet", keys, 2)
	if err != nil {
		t.Fatal(err)
	}
	const recipient = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" // EIP-55's own example
	r, _ := domain.ParseAddress(recipient)
	want, _, err := d.Address(r)
	if err != nil {
		t.Fatal(err)
	}
	o := operator{t: t, bin: testBinary(t), data: dataDir(t)}
	for _, m := range []devSigner{g.members[0], g.members[2]} {
		out, _ := o.run(0, "kaspa", "deposit-address", "--recipient", recipient, "--group", m.config)
		if strings.TrimSpace(out) != want.String() {
			t.Fatalf("%s's config: printed %q, want %s", m.id, out, want)
		}
	}
	if want.String() == g.address {
		t.Fatal("the deposit address is the group's own")
	}
	for _, c := range []struct{ recipient, says string }{
		{"0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae", "not an EVM address"},
		{"5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", "not an EVM address"},
		{"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD", "checksum"},
		{"0x0000000000000000000000000000000000000000", "zero address"},
	} {
		_, errOut := o.run(1, "kaspa", "deposit-address", "--recipient", c.recipient, "--group", g.members[0].config)
		if !strings.Contains(errOut, c.says) {
			t.Fatalf("recipient %s: stderr %q, want it to say %q", c.recipient, errOut, c.says)
		}
	}
	f := newSignerFixture(t, 3, 2) // a group on the simulated network
	if _, errOut := o.run(1, "kaspa", "deposit-address", "--recipient", recipient, "--group", f.write(t)); !strings.Contains(errOut, "Kaspa networks only") {
		t.Fatalf("sim group: stderr %q", errOut)
	}

	for range 2 {
		o.run(0, "kaspa", "deposit-address", "--recipient", strings.ToLower(recipient), "--group", g.members[1].config, "--register")
	}
	// Deposits as the relay's indexer records them: status counts them.
	lg, err := embeddedlog.Open(filepath.Join(o.data, "log"))
	if err != nil {
		t.Fatal(err)
	}
	app := &handlers.Appender{Log: lg, Catalog: topics.DefaultCatalog()}
	b := domain.Hash32{0xb1}
	ok, small := domain.KaspaOutpoint{TxID: domain.Hash32{1}}, domain.KaspaOutpoint{TxID: domain.Hash32{2}}
	_, err = app.Append(context.Background(), handlers.Cause{},
		domain.KaspaDepositDetected{Outpoint: ok, Amount: 1e8, Recipient: r, Block: b, DAAScore: 10},
		domain.KaspaDepositDetected{Outpoint: small, Amount: 1, Recipient: r, Block: b, DAAScore: 10, Refusal: domain.KaspaRefusalBelowMinimum},
		domain.KaspaDepositConfirmed{Outpoint: ok, Block: b, VirtualDAAScore: 400, Depth: 300},
		domain.KaspaDepositRefused{Outpoint: small, Block: b, Reason: domain.KaspaRefusalBelowMinimum, VirtualDAAScore: 400})
	if cerr := lg.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	o.run(0, "project")
	if out, _ := o.run(0, "status"); !strings.Contains(out, "kas in       CONFIRMED=1 REFUSED=1") {
		t.Fatalf("status:\n%s", out)
	}
	st, err := sqlstore.OpenSQLiteReadOnly(context.Background(), filepath.Join(o.data, "projections.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rs, err := projections.BridgeReader{Store: st}.KaspaDepositRecipients(context.Background(), "kaspa-simnet")
	if err != nil || len(rs) != 1 || rs[0] != r {
		t.Fatalf("registered recipients %v (%v), want %s once", rs, err, recipient)
	}
}

// TestRelayKaspaSectionRefused: a kaspa section without node or group,
// with a group that cannot be read or is on the simulated network, or a
// bad start block or timeout, stops the relay at start with the reason.
func TestRelayKaspaSectionRefused(t *testing.T) {
	g, err := writeDevSignerGroup(devGroupSpec{dir: t.TempDir(), members: 3, quorum: 2, kaspadRPC: []string{"127.0.0.1:16110"}})
	if err != nil {
		t.Fatal(err)
	}
	f := newSignerFixture(t, 3, 2)
	sim := f.write(t)
	for _, c := range []struct {
		name string
		s    relayKaspa
		says string
	}{
		{"no node", relayKaspa{Group: g.members[0].config}, "kaspa.node and kaspa.group are required"},
		{"no group", relayKaspa{Node: "127.0.0.1:1"}, "kaspa.node and kaspa.group are required"},
		{"sim group", relayKaspa{Node: "127.0.0.1:1", Group: sim}, "Kaspa networks only"},
		{"missing group", relayKaspa{Node: "127.0.0.1:1", Group: "nowhere.json"}, "kaspa.group"},
		{"bad start", relayKaspa{Node: "127.0.0.1:1", Group: g.members[0].config, StartBlock: "0x12"}, "kaspa.startBlock"},
		{"bad timeout", relayKaspa{Node: "127.0.0.1:1", Group: g.members[0].config, Timeout: "soon"}, "duration"},
	} {
		_, _, err := kaspaIndexer(context.Background(), &c.s, t.TempDir(), &bridge{}, bridgeOptions{})
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want it to say %q", c.name, err, c.says)
		}
	}
}

// TestRelayIndexesKaspaDeposits: a relay whose config has a kaspa section
// (a kaspad simnet node and a dev signing group) runs the Kaspa indexer
// as one of its steps: KAS sent to a registered deposit address is
// confirmed at the section's depth, with its metric.
func TestRelayIndexesKaspaDeposits(t *testing.T) {
	payer := kaspadtest.NewKey(t)
	n := kaspadtest.StartNode(t, kaspadtest.Options{MineTo: payer.Address})
	coins := n.WaitMature(t, payer.Address, 1)
	g, err := writeDevSignerGroup(devGroupSpec{dir: t.TempDir(), members: 3, quorum: 2, kaspadRPC: []string{n.RPC}})
	if err != nil {
		t.Fatal(err)
	}
	tb := newTestBridge(t, 100*time.Millisecond, 0, func(c *relayConfig) {
		c.Kaspa = &relayKaspa{Node: n.RPC, Group: g.members[0].config, Depth: 20, MinSompi: 10_000_000, Timeout: "5s"}
	})
	d, _, err := kaspaGroup(g.members[0].config)
	if err != nil {
		t.Fatal(err)
	}
	alice := domain.Address{0xa1}
	addr, _, err := d.Address(alice)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := tb.b.app.Append(ctx, handlers.Cause{}, domain.KaspaDepositAddressIssued{Network: d.Network(),
		GroupAddress: d.GroupAddress().String(), Recipient: alice, Address: addr.String()}); err != nil {
		t.Fatal(err)
	}
	const fee = 200_000
	tx := payer.Spend(t, coins[:1], kaspadtest.Payment{To: addr, Amount: 100_000_000},
		kaspadtest.Payment{To: payer.Address, Amount: coins[0].Amount - 100_000_000 - fee})
	if err := n.Proc.Submit(ctx, tx); err != nil {
		t.Fatal(err)
	}
	want := domain.KaspaOutpoint{TxID: domain.Hash32(kaspadtest.TxID(tx))}.Key()

	run, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- tb.b.run(run) }()
	defer func() { cancel(); <-done }()
	for {
		rows, err := tb.b.reader.KaspaDepositList(ctx, 10)
		if err == nil && len(rows) == 1 && rows[0].Outpoint == want && rows[0].Status == projections.KaspaDepositConfirmed {
			break
		}
		select {
		case <-run.Done():
			t.Fatalf("deposit %s not confirmed: %+v (%v)", want, rows, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
	rec := httptest.NewRecorder()
	tb.metrics.Mux().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if body := rec.Body.String(); !strings.Contains(body, `bridgelog_kaspa_deposits_total{kind="confirmed",network="kaspa-simnet"} 1`) {
		t.Fatalf("metrics lack the confirmed deposit:\n%s", grepLines(body, "kaspa"))
	}
}
