package twophase

import (
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
)

// Fixtures of the unit tests. adapters/simledger imports this package, so
// an internal test cannot use its rules: fakeRules is the least ledger the
// selection and the validator need.

var errFakeAddress = errors.New("not a test address")

// fakeRules: address "sim:x" locks to script "pay:x"; mass is linear in
// inputs, outputs and payload, refused above maxMass (0: 100,000).
type fakeRules struct {
	maxMass uint64
	base    Template
}

func (fakeRules) ScriptFor(address string) (Script, error) {
	name, ok := strings.CutPrefix(address, "sim:")
	if !ok || name == "" {
		return Script{}, fmt.Errorf("%w: %q", errFakeAddress, address)
	}
	return Script{Bytes: []byte("pay:" + name)}, nil
}

func (r fakeRules) Mass(t Template) (uint64, error) {
	m := fakeMass(len(t.Inputs), len(t.Outputs), len(t.Payload))
	limit := r.maxMass
	if limit == 0 {
		limit = 100_000
	}
	if m > limit {
		return 0, fmt.Errorf("mass %d over %d", m, limit)
	}
	return m, nil
}

func fakeMass(inputs, outputs, payload int) uint64 {
	return uint64(1000 + 1100*inputs + 360*outputs + payload)
}

func (fakeRules) TxID(t Template) Hash { return taggedHash("test/txid", t.Encode()) }

func (fakeRules) Input(u UTXO) TemplateInput {
	return TemplateInput{Outpoint: u.Outpoint, Amount: u.Amount, Script: u.Script, SigOpCount: 1}
}

func (r fakeRules) Base() Template { return r.base }

// groupScript is the test group's change script, payTo a destination's.
var groupScript = Script{Bytes: []byte("pay:group")}

func payTo(name string) Script { return Script{Bytes: []byte("pay:" + name)} }

// testGroup is a Profile A group of n members s1..sn with quorum m and
// deterministic keys.
func testGroup(n, m int) (Group, map[PeerID]ed25519.PrivateKey) {
	g := Group{Profile: ProfileA, Quorum: m, ChangeScript: groupScript, Network: "sim"}
	keys := map[PeerID]ed25519.PrivateKey{}
	for i := 1; i <= n; i++ {
		id := PeerID(fmt.Sprintf("s%d", i))
		seed := sha256.Sum256([]byte("identity/" + id))
		key := ed25519.NewKeyFromSeed(seed[:])
		keys[id] = key
		g.Members = append(g.Members, Member{ID: id, IdentityKey: key.Public().(ed25519.PublicKey),
			PayoutKey: []byte("payout/" + id)})
	}
	return g, keys
}

// op is a deterministic outpoint.
func op(name string, index uint32) Outpoint {
	return Outpoint{TxID: sha256.Sum256([]byte("tx/" + name)), Index: index}
}

// hashByte is a hash whose order is its first byte's.
func hashByte(b byte) Hash { return Hash{b} }

// groupUTXO is an output of the test group.
func groupUTXO(name string, amount, daa uint64) UTXO {
	return UTXO{Outpoint: op(name, 0), Amount: amount, Script: groupScript, DAAScore: daa}
}

// testEvent pays amount to sim:alice.
func testEvent(amount uint64) SigningEvent {
	return SigningEvent{Stream: "evm:1/bridge", Nonce: 7, Destination: "sim:alice", Amount: amount,
		Source: SourceRef{Chain: "evm:1", TxHash: hashByte(9), LogIndex: 2, Block: 100}}
}
