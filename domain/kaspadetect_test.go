package domain

import (
	"errors"
	"reflect"
	"testing"
)

var (
	kasDepositScript = []byte{0xaa, 0x20, 1, 2, 3, 0x87}
	kasGroupScript   = []byte{0xaa, 0x20, 9, 9, 9, 0x87}
	kasRecipient     = Address{0xde, 0xad}
)

func kasWatch() KaspaDepositWatch {
	return KaspaDepositWatch{Recipients: map[string]Address{string(kasDepositScript): kasRecipient},
		GroupScript: kasGroupScript, MinSompi: 1000, Depth: 10}
}

func kasTx(id byte, outs ...KaspaTxOutput) KaspaTx { return KaspaTx{ID: Hash32{id}, Outputs: outs} }

func kasOut(amount uint64, script []byte) KaspaTxOutput {
	return KaspaTxOutput{Amount: amount, Script: script}
}

// TestDetectKaspaDeposits: which outputs are deposits, with which
// recipient or refusal; and nothing is confirmed before the depth.
func TestDetectKaspaDeposits(t *testing.T) {
	other := []byte{0x20, 5, 0xac}
	groupSpend := kasTx(4, kasOut(5000, kasGroupScript), kasOut(5000, kasDepositScript))
	groupSpend.GroupSpend = true
	coinbase := kasTx(5, kasOut(5000, kasGroupScript))
	coinbase.Coinbase = true
	v1 := kasOut(5000, kasDepositScript)
	v1.ScriptVersion = 1
	block := KaspaChainBlock{Hash: Hash32{0xb1}, DAAScore: 100, Accepted: []KaspaTx{
		kasTx(1, kasOut(7, other), kasOut(2000, kasDepositScript)), // output 1 is a deposit
		kasTx(2, kasOut(999, kasDepositScript)),                    // under the minimum
		kasTx(3, kasOut(3000, kasGroupScript)),                     // no recipient
		groupSpend, coinbase, kasTx(6, v1), kasTx(7),               // none of these
	}}
	got := DetectKaspaDeposits(KaspaChainChange{Added: []KaspaChainBlock{block}, VirtualDAAScore: 109}, kasWatch(), nil)
	want := []Event{
		KaspaDepositDetected{Outpoint: KaspaOutpoint{Hash32{1}, 1}, Amount: 2000, Recipient: kasRecipient, Block: block.Hash, DAAScore: 100},
		KaspaDepositDetected{Outpoint: KaspaOutpoint{Hash32{2}, 0}, Amount: 999, Recipient: kasRecipient, Block: block.Hash, DAAScore: 100,
			Refusal: KaspaRefusalBelowMinimum},
		KaspaDepositDetected{Outpoint: KaspaOutpoint{Hash32{3}, 0}, Amount: 3000, Block: block.Hash, DAAScore: 100,
			Refusal: KaspaRefusalNoRecipient},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("detected\n%+v\nwant\n%+v", got, want)
	}
}

// TestKaspaDepositDepth: at the depth the deposit is confirmed, a refused
// one refused; a final sighting is not judged again.
func TestKaspaDepositDepth(t *testing.T) {
	b := KaspaChainBlock{Hash: Hash32{0xb1}, DAAScore: 100, Accepted: []KaspaTx{kasTx(1, kasOut(2000, kasDepositScript), kasOut(1, kasDepositScript))}}
	got := DetectKaspaDeposits(KaspaChainChange{Added: []KaspaChainBlock{b}, VirtualDAAScore: 110}, kasWatch(), nil)
	if len(got) != 4 {
		t.Fatalf("%d events, want 2 detected and their verdicts: %+v", len(got), got)
	}
	if c, ok := got[2].(KaspaDepositConfirmed); !ok || c.Outpoint.Index != 0 || c.Depth != 10 || c.VirtualDAAScore != 110 {
		t.Fatalf("third event %+v, want output 0 confirmed", got[2])
	}
	if r, ok := got[3].(KaspaDepositRefused); !ok || r.Outpoint.Index != 1 || r.Reason != KaspaRefusalBelowMinimum {
		t.Fatalf("fourth event %+v, want output 1 refused below the minimum", got[3])
	}
	// Later, from the records: an open sighting one short, one deep, one final.
	known := []KaspaDepositSighting{
		{Outpoint: KaspaOutpoint{Hash32{8}, 0}, Block: Hash32{0xb2}, DAAScore: 201},
		{Outpoint: KaspaOutpoint{Hash32{9}, 0}, Block: Hash32{0xb2}, DAAScore: 200},
		{Outpoint: KaspaOutpoint{Hash32{10}, 0}, Block: Hash32{0xb2}, DAAScore: 100, Final: true},
	}
	got = DetectKaspaDeposits(KaspaChainChange{VirtualDAAScore: 210}, kasWatch(), known)
	want := []Event{KaspaDepositConfirmed{Outpoint: known[1].Outpoint, Block: Hash32{0xb2}, VirtualDAAScore: 210, Depth: 10}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if KaspaDeep(^uint64(0)-3, ^uint64(0), 10) {
		t.Fatal("a depth that overflows counted as deep")
	}
}

// TestKaspaDepositReorg: sightings in removed chain blocks are undone (a
// final one flagged), others stay; a deposit accepted again by a new
// chain block is a new sighting there, confirmed at its own depth.
func TestKaspaDepositReorg(t *testing.T) {
	op := KaspaOutpoint{Hash32{1}, 0}
	known := []KaspaDepositSighting{
		{Outpoint: op, Block: Hash32{0xb1}, DAAScore: 100},
		{Outpoint: KaspaOutpoint{Hash32{2}, 0}, Block: Hash32{0xb0}, DAAScore: 50, Final: true},
		{Outpoint: KaspaOutpoint{Hash32{3}, 0}, Block: Hash32{0xaa}, DAAScore: 40, Final: true},
	}
	again := KaspaChainBlock{Hash: Hash32{0xc1}, DAAScore: 103, Accepted: []KaspaTx{kasTx(1, kasOut(2000, kasDepositScript))}}
	got := DetectKaspaDeposits(KaspaChainChange{Removed: []Hash32{{0xb1}, {0xb0}}, Added: []KaspaChainBlock{again}, VirtualDAAScore: 105},
		kasWatch(), known)
	want := []Event{
		KaspaDepositReorged{Outpoint: op, Block: Hash32{0xb1}},
		KaspaDepositReorged{Outpoint: known[1].Outpoint, Block: Hash32{0xb0}, WasFinal: true},
		KaspaDepositDetected{Outpoint: op, Amount: 2000, Recipient: kasRecipient, Block: again.Hash, DAAScore: 103},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%+v\nwant\n%+v", got, want)
	}
	if a, b := got[0].(KaspaDepositReorged).SourceKey(), got[2].(KaspaDepositDetected).SourceKey(); a == b {
		t.Fatal("reorg and new sighting share a source key")
	}
}

// TestKaspaDepositDuplicates: the same change read again on top of its
// own records (a crash before the cursor moved) detects nothing again and
// judges a recorded sighting once; an outpoint twice in one change is one
// sighting.
func TestKaspaDepositDuplicates(t *testing.T) {
	tx := kasTx(1, kasOut(2000, kasDepositScript))
	b := KaspaChainBlock{Hash: Hash32{0xb1}, DAAScore: 100, Accepted: []KaspaTx{tx, tx}}
	c := KaspaChainChange{Added: []KaspaChainBlock{b}, VirtualDAAScore: 200}
	first := DetectKaspaDeposits(c, kasWatch(), nil)
	if len(first) != 2 {
		t.Fatalf("%d events, want one detection and its confirmation: %+v", len(first), first)
	}
	known := []KaspaDepositSighting{{Outpoint: KaspaOutpoint{Hash32{1}, 0}, Block: b.Hash, DAAScore: 100, Final: true}}
	if again := DetectKaspaDeposits(c, kasWatch(), known); len(again) != 0 {
		t.Fatalf("repeat over a final record gave %+v, want nothing", again)
	}
	known[0].Final = false
	again := DetectKaspaDeposits(c, kasWatch(), known)
	if len(again) != 1 || again[0].SourceKey() != first[1].SourceKey() {
		t.Fatalf("repeat over an open record gave %+v, want its confirmation only", again)
	}
}

func TestKaspaOutpointKey(t *testing.T) {
	o := KaspaOutpoint{TxID: Hash32{0xab, 0x01}, Index: 7}
	back, err := ParseKaspaOutpoint(o.Key())
	if err != nil || back != o {
		t.Fatalf("%s read back as %+v (%v)", o.Key(), back, err)
	}
	for _, bad := range []string{"", "ab:1", o.Key()[:64], o.Key() + "x", "zz" + o.Key()[2:], o.Key()[:65] + "4294967296"} {
		if _, err := ParseKaspaOutpoint(bad); !errors.Is(err, ErrInvalidValue) {
			t.Errorf("%q: %v, want ErrInvalidValue", bad, err)
		}
	}
}
