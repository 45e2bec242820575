package kaspa

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"slices"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/kaspanet/go-secp256k1"
	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/domain/consensus/utils/consensushashing"
	"github.com/kaspanet/kaspad/domain/consensus/utils/txscript"
)

// secp256k1's field prime p and group order n.
var (
	fieldPrime = mustHex("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f")
	groupOrder = mustHex("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
)

// TestCheckMultisigMatchesTheEngine runs kaspad's script engine and
// checkMultisig on the same signature lists for input 0 of a 3-of-5
// payout: every sequence of up to M+1 of the members' signatures (in and
// out of key order, repeated, too few, too many), and sequences with a
// signature of another hash type, a retyped one, one of a non-standard
// type, a non-member's, an out-of-range one, a short one and an empty
// one. Both must accept exactly the same lists.
func TestCheckMultisigMatchesTheEngine(t *testing.T) {
	g := newTestGroup(t, 5, 3)
	tpl := g.build(t, 4*kas, g.view(3*kas, 3*kas))
	ms := g.rules.group
	tx := Transaction(tpl)
	reused := &consensushashing.SighashReusedValues{}

	// byKey[k]: input 0's signature by the k-th key of the redeem script.
	byKey := make([][]byte, len(ms.keys))
	for _, s := range g.signers {
		sig, err := s.SignPayout(tpl)
		if err != nil {
			t.Fatal(err)
		}
		byKey[slices.IndexFunc(ms.keys, func(k []byte) bool { return bytes.Equal(k, s.PublicKey()) })] = sig[:SignatureSize]
	}
	secretOfKey := func(k int) []byte {
		return g.secrets[slices.IndexFunc(g.signers, func(s *Signer) bool { return bytes.Equal(s.PublicKey(), ms.keys[k]) })]
	}
	sigNone := libsecpSign(t, tx, 0, consensushashing.SigHashNone, secretOfKey(1), reused)
	retyped := slices.Clone(byKey[1])
	retyped[SignatureSize-1] = byte(consensushashing.SigHashAll | consensushashing.SigHashAnyOneCanPay)
	nonStandardType := slices.Clone(byKey[1])
	nonStandardType[SignatureSize-1] = 3
	outsider := libsecpSign(t, tx, 0, consensushashing.SigHashAll, testSecret("outsider"), reused)
	highS := slices.Concat(byKey[1][:32], groupOrder, []byte{byte(consensushashing.SigHashAll)})
	short := byKey[1][1:]

	var cases [][][]byte
	var grow func(prefix [][]byte)
	grow = func(prefix [][]byte) {
		cases = append(cases, prefix)
		if len(prefix) <= ms.m {
			for _, s := range byKey {
				grow(append(slices.Clone(prefix), s))
			}
		}
	}
	grow(nil)
	for _, odd := range [][]byte{sigNone, retyped, nonStandardType, outsider, highS, short, {}} {
		cases = append(cases, [][]byte{odd, byKey[3], byKey[4]}, [][]byte{byKey[0], odd, byKey[4]},
			[][]byte{byKey[0], byKey[2], odd}, [][]byte{odd})
	}

	accepted := 0
	for _, sigs := range cases {
		b := txscript.NewScriptBuilder()
		for _, s := range sigs {
			b.AddData(s)
		}
		script, err := b.AddData(ms.redeem).Script()
		if err != nil {
			t.Fatal(err)
		}
		tx.Inputs[0].SignatureScript = script
		vm, err := txscript.NewEngine(tx.Inputs[0].UTXOEntry.ScriptPublicKey(), tx, 0, txscript.ScriptNoFlags, nil, nil, reused)
		if err != nil {
			t.Fatal(err)
		}
		engine := vm.Execute()
		ours := ms.checkMultisig(tx, 0, reused, sigs)
		if (engine == nil) != (ours == nil) {
			t.Fatalf("%s: the engine says %v, checkMultisig %v", describe(sigs, byKey), engine, ours)
		}
		if ours == nil {
			accepted++
		}
	}
	// The signatures of each 3 of the 5 keys in key order, and key 1's
	// SigHashNone signature in its place in two of its lists.
	if want := 5*4*3/(3*2) + 2; accepted != want {
		t.Fatalf("%d of %d lists accepted, want %d", accepted, len(cases), want)
	}
}

// libsecpSign signs input idx with go-secp256k1 as kaspawallet does.
func libsecpSign(t *testing.T, tx *externalapi.DomainTransaction, idx int, hashType consensushashing.SigHashType,
	secret []byte, reused *consensushashing.SighashReusedValues) []byte {
	t.Helper()
	kp, err := secp256k1.DeserializeSchnorrPrivateKeyFromSlice(secret)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := txscript.RawTxInSignature(tx, idx, hashType, kp, reused)
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

func describe(sigs, byKey [][]byte) string {
	var names []string
	for _, s := range sigs {
		name := fmt.Sprintf("other(%d bytes)", len(s))
		if k := slices.IndexFunc(byKey, func(b []byte) bool { return bytes.Equal(b, s) }); k >= 0 {
			name = fmt.Sprintf("key%d", k)
		}
		names = append(names, name)
	}
	return fmt.Sprint(names)
}

// TestParseSignatureRefusesOutOfRange: r must be below the field prime
// and s below the group order, as BIP-340 and libsecp256k1 require;
// btcec alone reduces s.
func TestParseSignatureRefusesOutOfRange(t *testing.T) {
	r := bytes.Repeat([]byte{1}, 32)
	if _, err := parseSignature(slices.Concat(r, r)); err != nil {
		t.Fatalf("an in-range signature: %v", err)
	}
	if _, err := schnorr.ParseSignature(slices.Concat(r, groupOrder)); err != nil {
		t.Fatalf("btcec now refuses s = n (%v): parseSignature's own check is redundant", err)
	}
	for name, sig := range map[string][]byte{
		"s = n":       slices.Concat(r, groupOrder),
		"s = 2^256-1": slices.Concat(r, bytes.Repeat([]byte{0xff}, 32)),
		"r = p":       slices.Concat(fieldPrime, r),
		"63 bytes":    slices.Concat(r, r[1:]),
	} {
		if _, err := parseSignature(sig); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}
