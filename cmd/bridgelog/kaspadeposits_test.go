package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
)

// TestKaspaDepositAddressCommand: deposit-address prints the recipient's
// deposit address under the group of any member's config, the one the
// kaspa package makes; refuses a malformed recipient, the zero address,
// a mixed-case address with a bad checksum and a group on the simulated
// network; --register appends the address's issue to the log, once
// however often it is registered.
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
	o.run(0, "project")
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
