package kaspa

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/domain/consensus/utils/consensushashing"
	"github.com/kaspanet/kaspad/util"
)

func TestScriptForRefusesOtherNetworks(t *testing.T) {
	g := newTestGroup(t, 3, 2)
	pub, err := PublicKey(testSecret("destination"))
	if err != nil {
		t.Fatal(err)
	}
	mainnet, err := util.NewAddressPublicKey(pub, util.Bech32PrefixKaspa)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.rules.ScriptFor(mainnet.String()); !errors.Is(err, ErrNetwork) {
		t.Fatalf("a mainnet address on simnet: %v", err)
	}
	if _, err := g.rules.ScriptFor("kaspasim:notanaddress"); !errors.Is(err, ErrNetwork) {
		t.Fatalf("a malformed address: %v", err)
	}
	// BuildTemplate refuses the event before selecting anything.
	req := g.request(kas)
	req.Event.Destination = mainnet.String()
	if _, _, _, err := twophase.BuildTemplate(req, g.view(10*kas)); !errors.Is(err, ErrNetwork) {
		t.Fatalf("a payout to mainnet from a simnet group: %v", err)
	}
	sim, err := g.rules.ScriptFor(testDestination())
	if err != nil || len(sim.Bytes) != 34 || sim.Version != 0 {
		t.Fatalf("a simnet P2PK address: %x, %v", sim.Bytes, err)
	}
}

func TestTemplateTransactionRoundTrip(t *testing.T) {
	g := newTestGroup(t, 3, 2)
	tpl := g.build(t, 4*kas, g.view(3*kas, 3*kas))
	if len(tpl.Inputs) != 2 || len(tpl.Outputs) != 2 {
		t.Fatalf("want 2 inputs and change, got %d and %d", len(tpl.Inputs), len(tpl.Outputs))
	}
	back, err := TemplateFromTransaction(Transaction(tpl))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, tpl) || back.Hash() != tpl.Hash() {
		t.Fatalf("round trip changed the template:\n%+v\n%+v", tpl, back)
	}
	tx := Transaction(tpl)
	tx.Inputs[1].UTXOEntry = nil
	if _, err := TemplateFromTransaction(tx); !errors.Is(err, ErrTemplate) {
		t.Fatalf("an input without its UTXO entry: %v", err)
	}
}

func TestTxIDIsKaspasAndStable(t *testing.T) {
	g := newTestGroup(t, 3, 2)
	tpl := g.build(t, 4*kas, g.view(3*kas, 3*kas))
	id := g.rules.TxID(tpl)
	if id != g.rules.TxID(tpl) {
		t.Fatal("two ids of one template")
	}
	tx := Transaction(tpl)
	tx.Inputs[0].SignatureScript = []byte{1, 2, 3}
	if id != twophase.Hash(*consensushashing.TransactionID(tx).ByteArray()) {
		t.Fatal("the id depends on the signature scripts")
	}
	other := tpl
	other.Outputs = append([]twophase.TemplateOutput(nil), tpl.Outputs...)
	other.Outputs[0].Amount++
	if g.rules.TxID(other) == id {
		t.Fatal("another template has the same id")
	}
}

func TestInputCarriesTheSigOpCountTheNodeCounts(t *testing.T) {
	for _, c := range []struct{ n, m int }{{3, 2}, {5, 3}, {15, 8}} {
		g := newTestGroup(t, c.n, c.m)
		in := g.rules.Input(g.view(kas).UTXOs[0])
		if int(in.SigOpCount) != c.n || in.Sequence != 0 {
			t.Errorf("%d-of-%d: sig ops %d, sequence %d", c.m, c.n, in.SigOpCount, in.Sequence)
		}
	}
	base := newTestGroup(t, 3, 2).rules.Base()
	if !reflect.DeepEqual(base, twophase.Template{}) {
		t.Errorf("base %+v: want version 0, native subnetwork, no lock time, gas or payload", base)
	}
}

func TestMassChargesComputeAndStorage(t *testing.T) {
	g := newTestGroup(t, 3, 2)
	big := g.build(t, 4*kas, g.view(3*kas, 3*kas))
	mass, err := g.rules.Mass(big)
	if err != nil {
		t.Fatal(err)
	}
	compute := g.rules.mass.CalculateTransactionMass(signedForMass(g, big))
	if mass != compute {
		t.Fatalf("mass %d, compute mass %d: large outputs should leave compute mass the larger", mass, compute)
	}
	// 0.4 KAS out of one input: KIP-9 storage mass (1e12/amount) exceeds
	// the compute mass.
	small := g.build(t, 4*kas/10, g.view(50*kas))
	mass, err = g.rules.Mass(small)
	if err != nil {
		t.Fatal(err)
	}
	storage := g.rules.mass.CalculateTransactionStorageMass(Transaction(small))
	if mass != storage || storage <= g.rules.mass.CalculateTransactionMass(signedForMass(g, small)) {
		t.Fatalf("mass %d, storage mass %d", mass, storage)
	}
	// 0.05 KAS: storage mass 2e5, over the standard maximum.
	req := g.request(5 * kas / 100)
	if _, _, _, err := twophase.BuildTemplate(req, g.view(50*kas)); !errors.Is(err, ErrNonStandard) {
		t.Fatalf("a payout of 0.05 KAS: %v", err)
	}
}

// signedForMass is tpl with every signature script at its signed size.
func signedForMass(g testGroup, tpl twophase.Template) *externalapi.DomainTransaction {
	tx := Transaction(tpl)
	for _, in := range tx.Inputs {
		in.SignatureScript = g.rules.group.sigScript
	}
	return tx
}

// Kaspa has no zero outputs: a zero change or a zero payout is refused.
func TestMassRefusesZeroOutputs(t *testing.T) {
	g := newTestGroup(t, 3, 2)
	tpl := g.build(t, 4*kas, g.view(3*kas, 3*kas))
	for i := range tpl.Outputs {
		zero := tpl
		zero.Outputs = slices.Clone(tpl.Outputs)
		zero.Outputs[i].Amount = 0
		if _, err := g.rules.Mass(zero); !errors.Is(err, ErrNonStandard) {
			t.Fatalf("a zero output %d: %v", i, err)
		}
	}
}

func TestMassRefusesDust(t *testing.T) {
	g := newTestGroup(t, 3, 2)
	tpl := g.build(t, 4*kas, g.view(3*kas, 3*kas))
	// A 34-byte P2PK script: 52 bytes of output and 148 of the input that
	// will spend it, dust below 3×200 sompi.
	if got := dustThreshold(tpl.Outputs[0].Script); got != 600 {
		t.Fatalf("dust threshold of a P2PK output %d, want 600", got)
	}
	tpl.Outputs[0].Amount = 599
	if _, err := g.rules.Mass(tpl); !errors.Is(err, ErrNonStandard) || !strings.Contains(err.Error(), "dust") {
		t.Fatalf("599 sompi: %v", err)
	}
	if isDust(twophase.TemplateOutput{Amount: 600, Script: tpl.Outputs[0].Script}) {
		t.Fatal("600 sompi to P2PK is not dust")
	}
}

func TestMassRefusesTooManyInputs(t *testing.T) {
	g := newTestGroup(t, 3, 2)
	amounts := make([]uint64, 40)
	for i := range amounts {
		amounts[i] = 10 * kas
	}
	view := g.view(amounts...)
	// A 2-of-3 input weighs 3288 grams (288 bytes and 3 sig ops): 30
	// inputs fit under the standard mass, 31 do not.
	fits := g.build(t, 299*kas, view)
	if mass, err := g.rules.Mass(fits); err != nil || len(fits.Inputs) != 30 || mass > MaxStandardMass {
		t.Fatalf("%d inputs: mass %d, %v", len(fits.Inputs), mass, err)
	}
	if _, _, _, err := twophase.BuildTemplate(g.request(309*kas), view); !errors.Is(err, ErrNonStandard) {
		t.Fatalf("31 inputs of a 2-of-3 multisig: %v", err)
	}
}

func TestMassRefusesWhatTheNodeRefuses(t *testing.T) {
	g := newTestGroup(t, 3, 2)
	good := g.build(t, 4*kas, g.view(3*kas, 3*kas))
	if _, err := g.rules.Mass(good); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		change func(*twophase.Template)
		want   error
	}{
		{"version 1", func(t *twophase.Template) { t.Version = 1 }, ErrNonStandard},
		{"another subnetwork", func(t *twophase.Template) { t.SubnetworkID[0] = 3 }, ErrNonStandard},
		{"gas", func(t *twophase.Template) { t.Gas = 1 }, ErrNonStandard},
		{"payload", func(t *twophase.Template) { t.Payload = []byte{1} }, ErrNonStandard},
		{"lock time", func(t *twophase.Template) { t.LockTime = 1 }, ErrNonStandard},
		{"no outputs", func(t *twophase.Template) { t.Outputs = nil }, ErrNonStandard},
		{"wrong sig-op count", func(t *twophase.Template) { t.Inputs[1].SigOpCount = 2 }, ErrNonStandard},
		{"foreign input", func(t *twophase.Template) { t.Inputs[0].Script = t.Outputs[0].Script }, ErrTemplate},
		{"non-standard output script", func(t *twophase.Template) { t.Outputs[0].Script.Bytes = []byte{0x51} }, ErrNonStandard},
		{"script version 1", func(t *twophase.Template) { t.Outputs[0].Script.Version = 1 }, ErrNonStandard},
		{"unspendable output", func(t *twophase.Template) { t.Outputs[0].Script.Bytes = []byte{0x6a, 0x01, 0x00} }, ErrNonStandard},
	}
	for _, c := range cases {
		bad := good
		bad.Inputs = append([]twophase.TemplateInput(nil), good.Inputs...)
		bad.Outputs = append([]twophase.TemplateOutput(nil), good.Outputs...)
		c.change(&bad)
		if _, err := g.rules.Mass(bad); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// TestBuiltTemplatesPassTheValidator: what BuildTemplate makes with these
// rules is what every other signer's validator accepts.
func TestBuiltTemplatesPassTheValidator(t *testing.T) {
	g := newTestGroup(t, 5, 3)
	req := g.request(4 * kas)
	tpl := g.build(t, req.Event.Amount, g.view(3*kas, 2*kas, 7*kas))
	p := twophase.Proposal{Event: req.Event, TemplateHash: tpl.Hash(), Template: tpl.Encode(),
		Inputs: make([]twophase.InputMeta, len(tpl.Inputs)), Proposer: g.group.Members[0].ID}
	v := twophase.Validator{Group: g.group, Params: req.Params, Policy: req.Policy, Rules: g.rules}
	if _, err := v.Validate(p, p.Proposer); err != nil {
		t.Fatal(err)
	}
}

// A small change carries a large storage mass: the fee of the template
// with its change is the fee of that very change, not of a guess, so the
// other signers' validator takes what the builder built (2-of-3, 0.5 KAS
// from one 1.2 KAS output, any change accepted).
func TestSmallChangePaysItsOwnStorageMass(t *testing.T) {
	g := newTestGroup(t, 3, 2)
	for _, minChange := range []uint64{0, kas / 10} {
		req := g.request(kas / 2)
		req.Policy.MinChange = minChange
		tpl, _, _, err := twophase.BuildTemplate(req, g.view(12*kas/10))
		if err != nil {
			t.Fatalf("min change %d: %v", minChange, err)
		}
		p := twophase.Proposal{Event: req.Event, TemplateHash: tpl.Hash(), Template: tpl.Encode(),
			Inputs: make([]twophase.InputMeta, len(tpl.Inputs)), Proposer: g.group.Members[0].ID}
		v := twophase.Validator{Group: g.group, Params: req.Params, Policy: req.Policy, Rules: g.rules}
		if _, err := v.Validate(p, p.Proposer); err != nil {
			t.Fatalf("min change %d: the validator refuses what was built (%d outputs): %v", minChange, len(tpl.Outputs), err)
		}
	}
}
