package kaspa

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kaspanet/go-secp256k1"
	"github.com/kaspanet/kaspad/cmd/kaspawallet/libkaspawallet"
	"github.com/kaspanet/kaspad/cmd/kaspawallet/libkaspawallet/bip32"
	"github.com/kaspanet/kaspad/domain/dagconfig"
	"github.com/kaspanet/kaspad/util"
)

func TestKeyPairAndPublicKey(t *testing.T) {
	secret, public, err := NewKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	if len(secret) != SecretSize || len(public) != PublicKeySize {
		t.Fatalf("sizes %d and %d", len(secret), len(public))
	}
	again, err := PublicKey(secret)
	if err != nil || !bytes.Equal(again, public) {
		t.Fatalf("PublicKey(secret) = %x, %v; NewKeyPair said %x", again, err, public)
	}
	kaspawallet, err := libkaspawallet.PublicKeyFromPrivateKey(secret)
	if err != nil || !bytes.Equal(kaspawallet, public) {
		t.Fatalf("kaspawallet derives %x, %v", kaspawallet, err)
	}
	for _, bad := range [][]byte{nil, make([]byte, 31), make([]byte, 32)} {
		if _, err := PublicKey(bad); !errors.Is(err, ErrKey) {
			t.Errorf("secret %x: %v", bad, err)
		}
	}
}

func TestGroupAddressRoundTrip(t *testing.T) {
	keys := testKeys(t, 3)
	redeem, addr, err := GroupScript(testNetwork, keys, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(addr.String(), "kaspasim:") {
		t.Fatalf("address %s is not a simnet address", addr)
	}
	back, err := DecodeAddress(testNetwork, addr.String())
	if err != nil || !back.IsForPrefix(util.Bech32PrefixKaspaSim) || back.String() != addr.String() {
		t.Fatalf("decoded %v, %v", back, err)
	}
	if _, ok := back.(*util.AddressScriptHash); !ok {
		t.Fatalf("decoded a %T, want a P2SH address", back)
	}

	// The order a config lists the keys in does not matter, and the
	// caller's slice is left as it was.
	reversed := slices.Clone(keys)
	slices.Reverse(reversed)
	before := slices.Clone(reversed)
	redeem2, addr2, err := GroupScript(testNetwork, reversed, 2)
	if err != nil || !bytes.Equal(redeem, redeem2) || addr2.String() != addr.String() {
		t.Fatalf("reversed keys give %s, %v", addr2, err)
	}
	if !slices.EqualFunc(reversed, before, bytes.Equal) {
		t.Fatal("GroupScript reordered the caller's keys")
	}

	// The rules pay the address with the group's change script.
	r, err := NewRules(testNetwork, keys, 2)
	if err != nil {
		t.Fatal(err)
	}
	script, err := r.ScriptFor(addr.String())
	if err != nil || !script.Equal(r.ChangeScript()) || r.Address().String() != addr.String() {
		t.Fatalf("ScriptFor(group address) = %x, %v", script.Bytes, err)
	}
	if _, mainAddr, _ := GroupScript("kaspa-mainnet", keys, 2); mainAddr.String() == addr.String() {
		t.Fatal("the same group has the same address on mainnet and simnet")
	}
}

func TestGroupScriptRefusals(t *testing.T) {
	keys := testKeys(t, 16)
	notOnCurve := bytes.Repeat([]byte{0xff}, PublicKeySize) // x >= p
	cases := []struct {
		name string
		keys [][]byte
		m    int
	}{
		{"no keys", nil, 1},
		{"threshold 0", keys[:3], 0},
		{"threshold above N", keys[:3], 4},
		{"16 keys: over the standard P2SH sig ops", keys, 9},
		{"short key", [][]byte{keys[0], keys[1][:31]}, 2},
		{"not a curve point", [][]byte{keys[0], notOnCurve}, 2},
		{"duplicate key", [][]byte{keys[0], keys[1], keys[0]}, 2},
	}
	for _, c := range cases {
		if _, _, err := GroupScript(testNetwork, c.keys, c.m); !errors.Is(err, ErrKey) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if _, _, err := GroupScript("kaspa-moon", keys[:3], 2); !errors.Is(err, ErrNetwork) {
		t.Errorf("unknown network: %v", err)
	}
	if _, _, err := GroupScript(testNetwork, keys[:MaxGroupKeys], MaxGroupKeys); err != nil {
		t.Errorf("15-of-15 is standard: %v", err)
	}
}

// TestGroupScriptMatchesKaspawallet builds the same multisig as
// kaspawallet does from extended public keys. kaspawallet orders the keys
// by their xpub strings, GroupScript by the keys' bytes: the redeem
// script builder is compared with kaspawallet's for every key set in
// kaspawallet's order, and GroupScript itself for key sets whose two
// orders agree.
func TestGroupScriptMatchesKaspawallet(t *testing.T) {
	const path = "m/0/0"
	params := &dagconfig.SimnetParams
	sameOrder := 0
	for set := 0; set < 24; set++ {
		var xpubs []string
		byXpub := map[string][]byte{}
		for i := 0; i < 3; i++ {
			seed := sha256.Sum256([]byte(fmt.Sprintf("kaspawallet-cross-check/%d/%d", set, i)))
			master, err := bip32.NewMasterWithPath(seed[:], bip32.KaspaSimnetPrivate, "m/45'/111111'/0'")
			if err != nil {
				t.Fatal(err)
			}
			xpub, err := master.Public()
			if err != nil {
				t.Fatal(err)
			}
			child, err := master.DeriveFromPath(path)
			if err != nil {
				t.Fatal(err)
			}
			kp, err := child.PrivateKey().ToSchnorr()
			if err != nil {
				t.Fatal(err)
			}
			// Our key derivation from the secret kaspawallet would sign with.
			key, err := PublicKey(kp.SerializePrivateKey()[:])
			if err != nil {
				t.Fatal(err)
			}
			xpubs = append(xpubs, xpub.String())
			byXpub[xpub.String()] = key
		}
		want, err := libkaspawallet.Address(params, slices.Clone(xpubs), 2, path, false)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(xpubs)
		walletOrder := make([][]byte, len(xpubs))
		for i, x := range xpubs {
			walletOrder[i] = byXpub[x]
		}
		redeem := multisigScript(walletOrder, 2)
		got, err := util.NewAddressScriptHash(redeem, params.Prefix)
		if err != nil || got.String() != want.String() {
			t.Fatalf("set %d: redeem script in kaspawallet's order gives %s, kaspawallet %s", set, got, want)
		}
		if slices.IsSortedFunc(walletOrder, bytes.Compare) {
			sameOrder++
			_, addr, err := GroupScript(testNetwork, walletOrder, 2)
			if err != nil || addr.String() != want.String() {
				t.Fatalf("set %d: GroupScript gives %s, kaspawallet %s", set, addr, want)
			}
		}
	}
	if sameOrder == 0 {
		t.Fatal("no key set had the same order in both: GroupScript was not compared")
	}
}

// testKeys are n deterministic payout public keys.
func testKeys(t testing.TB, n int) [][]byte {
	t.Helper()
	keys := make([][]byte, n)
	for i := range keys {
		k, err := PublicKey(testSecret(fmt.Sprintf("keys/%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		keys[i] = k
	}
	return keys
}

// TestKeysMatchGoSecp256k1: the secrets this package takes and refuses,
// their public keys and the x-only keys it parses are libsecp256k1's
// (through go-secp256k1, as kaspawallet and the node use it).
func TestKeysMatchGoSecp256k1(t *testing.T) {
	one := append(make([]byte, 31), 1)
	nMinus1 := slices.Clone(groupOrder)
	nMinus1[31]--
	nPlus1 := slices.Clone(groupOrder)
	nPlus1[31]++
	secrets := [][]byte{make([]byte, 32), one, nMinus1, groupOrder, nPlus1, bytes.Repeat([]byte{0xff}, 32)}
	for i := range 32 {
		secrets = append(secrets, testSecret(fmt.Sprintf("cross-check/%d", i)))
	}
	for _, s := range secrets {
		ours, err := PublicKey(s)
		kp, libErr := secp256k1.DeserializeSchnorrPrivateKeyFromSlice(s)
		if (err == nil) != (libErr == nil) {
			t.Fatalf("secret %x: %v, go-secp256k1 %v", s, err, libErr)
		}
		if err != nil {
			if !errors.Is(err, ErrKey) {
				t.Fatalf("secret %x: %v", s, err)
			}
			continue
		}
		pub, err := kp.SchnorrPublicKey()
		if err != nil {
			t.Fatal(err)
		}
		lib, err := pub.Serialize()
		if err != nil || !bytes.Equal(ours, lib[:]) {
			t.Fatalf("secret %x: public key %x, go-secp256k1 %x (%v)", s, ours, lib[:], err)
		}
	}

	// About half of all x coordinates are on the curve.
	xs := [][]byte{make([]byte, 32), fieldPrime, bytes.Repeat([]byte{0xff}, 32)}
	for i := range 64 {
		xs = append(xs, testSecret(fmt.Sprintf("x/%d", i)))
	}
	onCurve := 0
	for _, x := range xs {
		_, err := parsePublicKey(x)
		_, libErr := secp256k1.DeserializeSchnorrPubKey(x)
		if (err == nil) != (libErr == nil) {
			t.Fatalf("key %x: %v, go-secp256k1 %v", x, err, libErr)
		}
		if err == nil {
			onCurve++
		}
	}
	if onCurve == 0 || onCurve == len(xs) {
		t.Fatalf("%d of %d keys on the curve: the comparison saw one side only", onCurve, len(xs))
	}
}
