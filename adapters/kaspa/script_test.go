package kaspa

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kaspanet/go-secp256k1"
	"github.com/kaspanet/kaspad/domain/consensus/utils/txscript"
	"github.com/kaspanet/kaspad/util"
)

// The hand-written scripts are compared with what txscript builds and
// reads: the node runs txscript, the production code may not link it.

func TestPushDataMatchesScriptBuilder(t *testing.T) {
	var data [][]byte
	for _, b := range []byte{0, 1, 16, 17, 0x80, 0x81, 0xff} {
		data = append(data, []byte{b})
	}
	for _, n := range []int{0, 2, 32, 33, 65, 75, 76, 255, 256, 498, 520, 521, 0xffff, 0x10000} {
		data = append(data, bytes.Repeat([]byte{0xa5}, n))
	}
	for _, d := range data {
		want, err := txscript.NewScriptBuilder().AddFullData(d).Script()
		if err != nil {
			t.Fatalf("%d bytes: %v", len(d), err)
		}
		if got := pushData(nil, d); !bytes.Equal(got, want) {
			t.Errorf("push of %d bytes (%x...): %x, txscript %x", len(d), d[:min(len(d), 2)], got[:min(len(got), 8)], want[:min(len(want), 8)])
		}
	}
}

// TestGroupScriptsMatchTxscript: for every group size and several
// thresholds, the redeem script, its P2SH lock, the signature script, the
// sig-op count and the lock's class are txscript's.
func TestGroupScriptsMatchTxscript(t *testing.T) {
	all := testKeys(t, MaxGroupKeys)
	for n := 1; n <= MaxGroupKeys; n++ {
		for _, m := range slices.Compact([]int{1, (n + 1) / 2, n}) {
			ms, err := newMultisig(testNetwork, all[:n], m)
			if err != nil {
				t.Fatal(err)
			}
			b := txscript.NewScriptBuilder().AddInt64(int64(m))
			for _, k := range ms.keys {
				b.AddData(k)
			}
			redeem, err := b.AddInt64(int64(n)).AddOp(txscript.OpCheckMultiSig).Script()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ms.redeem, redeem) {
				t.Fatalf("%d-of-%d redeem script %x, txscript %x", m, n, ms.redeem, redeem)
			}
			lock, err := txscript.PayToScriptHashScript(redeem)
			if err != nil || !bytes.Equal(ms.lock.Script, lock) || ms.lock.Version != 0 {
				t.Fatalf("%d-of-%d lock %x, txscript %x (%v)", m, n, ms.lock.Script, lock, err)
			}
			if c := txscript.GetScriptClass(ms.lock.Script); c != txscript.ScriptHashTy || classifyScript(ms.lock.Script) != payToScriptHashScript {
				t.Fatalf("%d-of-%d lock is %s", m, n, c)
			}
			sigs := make([][]byte, m)
			for i := range sigs {
				sigs[i] = bytes.Repeat([]byte{byte(i + 1)}, SignatureSize)
			}
			for _, s := range [][][]byte{sigs, nil, sigs[:1]} {
				sb := txscript.NewScriptBuilder()
				for _, sig := range s {
					sb.AddData(sig)
				}
				want, err := sb.AddData(redeem).Script()
				if err != nil {
					t.Fatal(err)
				}
				if got := signatureScript(s, ms.redeem); !bytes.Equal(got, want) {
					t.Fatalf("%d-of-%d signature script with %d signatures: %x, txscript %x", m, n, len(s), got, want)
				}
			}
			if len(ms.sigScript) != len(signatureScript(sigs, redeem)) {
				t.Fatalf("%d-of-%d: the mass estimate's signature script has %d bytes, a signed one %d", m, n, len(ms.sigScript), len(signatureScript(sigs, redeem)))
			}
			ops := txscript.GetPreciseSigOpCount(ms.sigScript, ms.lock, true)
			if ops != int(ms.sigOps) || ops != multisigSigOps(n) {
				t.Fatalf("%d-of-%d: the node counts %d sig ops, the group %d", m, n, ops, ms.sigOps)
			}
		}
	}
}

func TestPayToAddrScriptMatchesTxscript(t *testing.T) {
	pub, err := PublicKey(testSecret("p2pk"))
	if err != nil {
		t.Fatal(err)
	}
	kp, err := secp256k1.DeserializeECDSAPrivateKeyFromSlice(testSecret("p2pk-ecdsa"))
	if err != nil {
		t.Fatal(err)
	}
	ecdsaPub, err := kp.ECDSAPublicKey()
	if err != nil {
		t.Fatal(err)
	}
	ecdsaKey, err := ecdsaPub.Serialize()
	if err != nil {
		t.Fatal(err)
	}
	_, group, err := GroupScript(testNetwork, testKeys(t, 3), 2)
	if err != nil {
		t.Fatal(err)
	}
	p2pk, err := util.NewAddressPublicKey(pub, util.Bech32PrefixKaspaSim)
	if err != nil {
		t.Fatal(err)
	}
	p2pkECDSA, err := util.NewAddressPublicKeyECDSA(ecdsaKey[:], util.Bech32PrefixKaspaSim)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRules(testNetwork, testKeys(t, 3), 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		addr  util.Address
		class txscript.ScriptClass
	}{
		{p2pk, txscript.PubKeyTy},
		{p2pkECDSA, txscript.PubKeyECDSATy},
		{group, txscript.ScriptHashTy},
	} {
		want, err := txscript.PayToAddrScript(c.addr)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.ScriptFor(c.addr.String())
		if err != nil || !bytes.Equal(got.Bytes, want.Script) || got.Version != want.Version {
			t.Fatalf("%T: %x v%d (%v), txscript %x v%d", c.addr, got.Bytes, got.Version, err, want.Script, want.Version)
		}
		if txscript.GetScriptClass(got.Bytes) != c.class || classifyScript(got.Bytes) != classOf(c.class) {
			t.Fatalf("%T: class %d, txscript %s", c.addr, classifyScript(got.Bytes), txscript.GetScriptClass(got.Bytes))
		}
	}
}

// TestClassifyScriptMatchesTxscript compares the class of the standard
// scripts, of every one-byte change, truncation and extension of them, of
// unspendable and malformed scripts and of random bytes, and checks that
// no script classified standard is unspendable to txscript.
func TestClassifyScriptMatchesTxscript(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 33)
	standard := [][]byte{
		append(pushData(nil, key[:32]), opCheckSig),
		append(pushData(nil, key), opCheckSigECDSA),
		append(pushData([]byte{opBlake2b}, key[:32]), opEqual),
	}
	scripts := [][]byte{nil, {opReturn}, {opReturn, 1, 0}, {opPushData1}, {opData32, 1, 2}, {opCheckSig}}
	for _, s := range standard {
		scripts = append(scripts, s, s[:len(s)-1], append(slices.Clone(s), opCheckSig), append([]byte{opReturn}, s...))
		for i := range s {
			for _, b := range []byte{0, opData32, opData33, opCheckSig, opCheckSigECDSA, opBlake2b, opEqual, opReturn, 0xff} {
				changed := slices.Clone(s)
				changed[i] = b
				scripts = append(scripts, changed)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		s := make([]byte, rng.IntN(40))
		for i := range s {
			s[i] = byte(rng.Uint32())
		}
		if len(s) > 0 && rng.IntN(2) == 0 { // often a standard script's first opcode
			s[0] = []byte{opData32, opData33, opBlake2b}[rng.IntN(3)]
		}
		scripts = append(scripts, s)
	}
	standardSeen := 0
	for _, s := range scripts {
		want := txscript.GetScriptClass(s)
		got := classifyScript(s)
		if got != classOf(want) {
			t.Fatalf("%x: class %d, txscript %s", s, got, want)
		}
		if got != nonStandardScript {
			standardSeen++
			if txscript.IsUnspendable(s) {
				t.Fatalf("%x is standard and unspendable to txscript", s)
			}
		}
	}
	if standardSeen < len(standard) {
		t.Fatalf("only %d standard scripts among the compared", standardSeen)
	}
}

func classOf(c txscript.ScriptClass) scriptClass {
	switch c {
	case txscript.PubKeyTy:
		return payToPubKeyScript
	case txscript.PubKeyECDSATy:
		return payToPubKeyECDSAScript
	case txscript.ScriptHashTy:
		return payToScriptHashScript
	}
	return nonStandardScript
}

// opReturn marks a script unspendable; the production code has no use
// for it.
const opReturn = 0x6a
