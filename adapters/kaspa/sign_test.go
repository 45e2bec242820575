package kaspa

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/kaspanet/go-secp256k1"
	"github.com/kaspanet/kaspad/cmd/kaspawallet/libkaspawallet/serialization"
	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/domain/consensus/utils/consensushashing"
	"github.com/kaspanet/kaspad/domain/consensus/utils/txscript"
)

// TestSignAssembleExecute: M members sign a template built by
// BuildTemplate; the assembled transaction deserializes, has the
// template's id and mass, and passes kaspad's script engine.
func TestSignAssembleExecute(t *testing.T) {
	for _, c := range []struct {
		n, m    int
		signers []int
	}{
		{3, 2, []int{2, 0}},
		{3, 2, []int{0, 1, 2}}, // more than M: M of them are used
		{5, 3, []int{4, 1, 3}},
		{5, 3, []int{0, 1, 2, 3, 4}},
	} {
		t.Run(fmt.Sprintf("%d-of-%d/by%v", c.m, c.n, c.signers), func(t *testing.T) {
			g := newTestGroup(t, c.n, c.m)
			tpl := g.build(t, 4*kas, g.view(3*kas, 3*kas, kas/2))
			if len(tpl.Inputs) != 2 {
				t.Fatalf("%d inputs, want 2", len(tpl.Inputs))
			}
			sigs := g.sign(t, tpl, c.signers...)
			for i, s := range sigs {
				if len(s.Signature) != 2*SignatureSize {
					t.Fatalf("signature of %d bytes", len(s.Signature))
				}
				if err := (Scheme{}).VerifySignature(tpl, g.group.Members[c.signers[i]], s.Signature); err != nil {
					t.Fatal(err)
				}
			}
			raw, err := Scheme{}.Assemble(tpl, g.group, sigs)
			if err != nil {
				t.Fatal(err)
			}
			tx, err := serialization.DeserializeDomainTransaction(raw)
			if err != nil {
				t.Fatal(err)
			}
			withEntries(tx, tpl)
			if err := executeEngine(tx); err != nil {
				t.Fatalf("script engine: %v", err)
			}
			if got := twophase.Hash(*consensushashing.TransactionID(tx).ByteArray()); got != g.rules.TxID(tpl) {
				t.Fatalf("signed id %s, template id %s", got, g.rules.TxID(tpl))
			}
			back, err := TemplateFromTransaction(tx)
			if err != nil || back.Hash() != tpl.Hash() {
				t.Fatalf("the signed transaction is another template (%v)", err)
			}
			for i, in := range tx.Inputs {
				ops := txscript.GetPreciseSigOpCount(in.SignatureScript, in.UTXOEntry.ScriptPublicKey(), true)
				if ops != int(in.SigOpCount) || len(in.SignatureScript) != len(g.rules.group.sigScript) {
					t.Fatalf("input %d: the node counts %d sig ops, declared %d; signature script %d bytes, estimated %d",
						i, ops, in.SigOpCount, len(in.SignatureScript), len(g.rules.group.sigScript))
				}
			}
			mass, err := g.rules.Mass(tpl)
			if err != nil {
				t.Fatal(err)
			}
			if signed := g.rules.mass.CalculateTransactionOverallMass(tx); signed != mass {
				t.Fatalf("signed mass %d, template mass %d", signed, mass)
			}
		})
	}
}

func TestSignaturesRefused(t *testing.T) {
	g := newTestGroup(t, 3, 2)
	tpl := g.build(t, 4*kas, g.view(3*kas, 3*kas))
	other := g.build(t, 5*kas, g.view(3*kas, 3*kas))
	good := g.sign(t, tpl, 0, 1)
	foreign := g.sign(t, other, 1)[0]
	scheme := Scheme{}

	if err := scheme.VerifySignature(tpl, g.group.Members[1], foreign.Signature); !errors.Is(err, ErrSignature) {
		t.Errorf("a signature of another template: %v", err)
	}
	if err := scheme.VerifySignature(tpl, g.group.Members[2], good[1].Signature); !errors.Is(err, ErrSignature) {
		t.Errorf("member 1's signature as member 2's: %v", err)
	}
	truncated := good[0].Signature[:SignatureSize]
	if err := scheme.VerifySignature(tpl, g.group.Members[0], truncated); !errors.Is(err, ErrSignature) {
		t.Errorf("one input's signature for two inputs: %v", err)
	}
	anyoneCanPay := slices.Clone(good[0].Signature)
	anyoneCanPay[SignatureSize-1] = byte(consensushashing.SigHashAll | consensushashing.SigHashAnyOneCanPay)
	if err := scheme.VerifySignature(tpl, g.group.Members[0], anyoneCanPay); !errors.Is(err, ErrSignature) {
		t.Errorf("a SigHashAnyOneCanPay signature: %v", err)
	}
	flipped := slices.Clone(good[0].Signature)
	flipped[SignatureSize+3] ^= 1 // the second input's signature
	if err := scheme.VerifySignature(tpl, g.group.Members[0], flipped); !errors.Is(err, ErrSignature) {
		t.Errorf("a corrupted second input: %v", err)
	}

	cases := []struct {
		name string
		sigs []twophase.MemberSignature
		want error
	}{
		{"none", nil, ErrTooFewSignatures},
		{"fewer than M", good[:1], ErrTooFewSignatures},
		{"another template's", []twophase.MemberSignature{good[0], foreign}, ErrSignature},
		{"claimed by another member", []twophase.MemberSignature{good[0], {Signer: g.group.Members[2].ID, Signature: good[1].Signature}}, ErrSignature},
		{"a non-member", []twophase.MemberSignature{good[0], {Signer: "s99", Signature: good[1].Signature}}, ErrSignature},
		{"one member twice", []twophase.MemberSignature{good[0], good[0]}, ErrSignature},
	}
	for _, c := range cases {
		if _, err := scheme.Assemble(tpl, g.group, c.sigs); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := scheme.Assemble(tpl, g.group, good); err != nil {
		t.Fatalf("M good signatures: %v", err)
	}
}

// TestAssembleRefusesAnotherGroupsInputs: the group's keys must be the
// ones the inputs are locked to.
func TestAssembleRefusesAnotherGroupsInputs(t *testing.T) {
	g := newTestGroup(t, 3, 2)
	other := newTestGroup(t, 5, 3)
	tpl := other.build(t, 4*kas, other.view(3*kas, 3*kas))
	// Signed by g's keys over other's inputs: the signatures are valid
	// for the template, the multisig they would form is not its lock.
	sigs := g.sign(t, tpl, 0, 1)
	if _, err := (Scheme{}).Assemble(tpl, g.group, sigs); !errors.Is(err, ErrTemplate) {
		t.Fatalf("inputs of another group: %v", err)
	}
	if _, err := ForGroup(twophase.Group{Network: testNetwork, Quorum: 2, Members: g.group.Members, ChangeScript: other.group.ChangeScript}); !errors.Is(err, ErrKey) {
		t.Fatalf("a change script of other keys: %v", err)
	}
}

// TestSignaturesCrossVerifyWithGoSecp256k1: what SignPayout signs,
// libsecp256k1 (go-secp256k1, as the node) verifies, and a corrupted
// signature neither verifies; what go-secp256k1 signs (kaspawallet's
// txscript.RawTxInSignature) VerifySignature verifies and Assemble
// assembles into a transaction the script engine runs.
func TestSignaturesCrossVerifyWithGoSecp256k1(t *testing.T) {
	g := newTestGroup(t, 3, 2)
	tpl := g.build(t, 4*kas, g.view(3*kas, 3*kas, kas/2))
	tx := Transaction(tpl)
	reused := &consensushashing.SighashReusedValues{}
	hashes := make([]*externalapi.DomainHash, len(tx.Inputs))
	for i := range tx.Inputs {
		var err error
		if hashes[i], err = consensushashing.CalculateSignatureHashSchnorr(tx, i, consensushashing.SigHashAll, reused); err != nil {
			t.Fatal(err)
		}
	}
	for m, s := range g.signers {
		sig, err := s.SignPayout(tpl)
		if err != nil {
			t.Fatal(err)
		}
		libKey, err := secp256k1.DeserializeSchnorrPubKey(s.PublicKey())
		if err != nil {
			t.Fatal(err)
		}
		ourKey, err := parsePublicKey(s.PublicKey())
		if err != nil {
			t.Fatal(err)
		}
		for i, hash := range hashes {
			one := sig[i*SignatureSize : (i+1)*SignatureSize-1]
			corrupted := slices.Clone(one)
			corrupted[40] ^= 0x10
			for _, c := range []struct {
				sig  []byte
				want bool
			}{{one, true}, {corrupted, false}} {
				parsed, err := secp256k1.DeserializeSchnorrSignatureFromSlice(c.sig)
				if err != nil {
					t.Fatal(err)
				}
				lib := libKey.SchnorrVerify((*secp256k1.Hash)(hash.ByteArray()), parsed)
				ours := verifySchnorr(ourKey, hash, c.sig) == nil
				if lib != c.want || ours != c.want {
					t.Fatalf("member %d input %d (valid %v): go-secp256k1 verifies %v, btcec %v", m, i, c.want, lib, ours)
				}
			}
		}
	}

	var sigs []twophase.MemberSignature
	for _, m := range []int{2, 0} {
		var sig []byte
		for i := range tx.Inputs {
			sig = append(sig, libsecpSign(t, tx, i, consensushashing.SigHashAll, g.secrets[m], reused)...)
		}
		if err := (Scheme{}).VerifySignature(tpl, g.group.Members[m], sig); err != nil {
			t.Fatalf("a go-secp256k1 signature of member %d: %v", m, err)
		}
		if err := (Scheme{}).VerifySignature(tpl, g.group.Members[1], sig); !errors.Is(err, ErrSignature) {
			t.Fatalf("member %d's go-secp256k1 signature as member 1's: %v", m, err)
		}
		sigs = append(sigs, twophase.MemberSignature{Signer: g.group.Members[m].ID, Signature: sig})
	}
	raw, err := Scheme{}.Assemble(tpl, g.group, sigs)
	if err != nil {
		t.Fatal(err)
	}
	signed, err := serialization.DeserializeDomainTransaction(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := executeEngine(withEntries(signed, tpl)); err != nil {
		t.Fatalf("script engine: %v", err)
	}
}
