package kaspa

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/domain/consensus/utils/consensushashing"
	"github.com/kaspanet/kaspad/domain/consensus/utils/constants"
	"github.com/kaspanet/kaspad/domain/consensus/utils/txscript"
	"github.com/kaspanet/kaspad/domain/consensus/utils/utxo"
	"github.com/kaspanet/kaspad/util"
)

const (
	testNetwork = "kaspa-simnet"
	kas         = constants.SompiPerKaspa
)

// testSecret derives a deterministic payout secret from a label.
func testSecret(label string) []byte {
	s := sha256.Sum256([]byte("bridgelog/kaspa-test/" + label))
	return s[:]
}

// testGroup is an M-of-N group on simnet with every member's signer.
type testGroup struct {
	group   twophase.Group
	rules   *Rules
	signers []*Signer // in member order
	secrets [][]byte  // the signers' secrets
}

func newTestGroup(t testing.TB, n, m int) testGroup {
	t.Helper()
	g := testGroup{group: twophase.Group{Profile: twophase.ProfileA, Quorum: m, Network: testNetwork}}
	for i := range n {
		secret := testSecret(fmt.Sprintf("%d-of-%d/member/%d", m, n, i))
		s, err := NewSigner(secret)
		if err != nil {
			t.Fatal(err)
		}
		g.secrets = append(g.secrets, secret)
		id := sha256.Sum256([]byte(fmt.Sprintf("identity/%d", i)))
		g.signers = append(g.signers, s)
		g.group.Members = append(g.group.Members, twophase.Member{
			ID:          twophase.PeerID(fmt.Sprintf("s%02d", i+1)),
			IdentityKey: ed25519.NewKeyFromSeed(id[:]).Public().(ed25519.PublicKey),
			PayoutKey:   s.PublicKey(),
		})
	}
	r, err := ForGroup(g.group)
	if err != nil {
		t.Fatal(err)
	}
	g.rules = r
	g.group.ChangeScript = r.ChangeScript()
	if err := g.group.Validate(); err != nil {
		t.Fatal(err)
	}
	return g
}

// view holds group outputs of the given amounts, all deep.
func (g testGroup) view(amounts ...uint64) twophase.LedgerView {
	v := twophase.LedgerView{VirtualDAAScore: 100_000}
	for i, a := range amounts {
		var id twophase.Hash
		id[0], id[31] = byte(i), 0xaa
		v.UTXOs = append(v.UTXOs, twophase.UTXO{Outpoint: twophase.Outpoint{TxID: id, Index: uint32(i)},
			Amount: a, Script: g.group.ChangeScript, DAAScore: 1})
	}
	return v
}

// build makes the payout of amount to a simnet address over view.
func (g testGroup) build(t testing.TB, amount uint64, view twophase.LedgerView) twophase.Template {
	t.Helper()
	tpl, _, _, err := twophase.BuildTemplate(g.request(amount), view)
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

func (g testGroup) request(amount uint64) twophase.BuildRequest {
	return twophase.BuildRequest{
		Event:  twophase.SigningEvent{Stream: "test", Nonce: 1, Destination: testDestination(), Amount: amount},
		Group:  g.group,
		Params: twophase.DefaultParams(),
		Policy: twophase.Policy{MinChange: kas},
		Rules:  g.rules,
	}
}

// sign returns the signatures of the members at the given indexes.
func (g testGroup) sign(t testing.TB, tpl twophase.Template, members ...int) []twophase.MemberSignature {
	t.Helper()
	var out []twophase.MemberSignature
	for _, i := range members {
		sig, err := g.signers[i].SignPayout(tpl)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, twophase.MemberSignature{Signer: g.group.Members[i].ID, Signature: sig})
	}
	return out
}

// testDestination is a simnet pay-to-public-key address outside the group.
func testDestination() string {
	pub, err := PublicKey(testSecret("destination"))
	if err != nil {
		panic(err)
	}
	a, err := util.NewAddressPublicKey(pub, util.Bech32PrefixKaspaSim)
	if err != nil {
		panic(err)
	}
	return a.String()
}

// executeEngine runs kaspad's script engine on every input of a signed
// transaction, as a node validating it does.
func executeEngine(tx *externalapi.DomainTransaction) error {
	reused := &consensushashing.SighashReusedValues{}
	for i, in := range tx.Inputs {
		vm, err := txscript.NewEngine(in.UTXOEntry.ScriptPublicKey(), tx, i, txscript.ScriptNoFlags, nil, nil, reused)
		if err != nil {
			return err
		}
		if err := vm.Execute(); err != nil {
			return fmt.Errorf("input %d: %w", i, err)
		}
	}
	return nil
}

// withEntries attaches the template's UTXO entries to a deserialized
// transaction (the serialization carries none).
func withEntries(tx *externalapi.DomainTransaction, tpl twophase.Template) *externalapi.DomainTransaction {
	for i, in := range tpl.Inputs {
		tx.Inputs[i].UTXOEntry = utxo.NewUTXOEntry(in.Amount, scriptPublicKey(in.Script), false, 0)
	}
	return tx
}
