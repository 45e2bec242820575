package domain

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

func TestSompiOfIsExact(t *testing.T) {
	maxSompi := new(big.Int).Mul(new(big.Int).SetUint64(1<<64-1), big.NewInt(WeiPerSompi))
	cases := []struct {
		wei  *big.Int
		want uint64
		err  bool
	}{
		{big.NewInt(0), 0, false},
		{big.NewInt(WeiPerSompi), 1, false},
		{big.NewInt(1e18), 1e8, false}, // one token is one KAS
		{maxSompi, 1<<64 - 1, false},
		{big.NewInt(WeiPerSompi - 1), 0, true},
		{big.NewInt(1e18 + 1), 0, true},
		{new(big.Int).Add(maxSompi, big.NewInt(WeiPerSompi)), 0, true}, // 2^64 sompi
	}
	for _, c := range cases {
		a, err := NewAmount(c.wei)
		if err != nil {
			t.Fatal(err)
		}
		got, err := SompiOf(a)
		if c.err != errors.Is(err, ErrNotWholeSompi) || got != c.want {
			t.Errorf("SompiOf(%s) = %d, %v; want %d, error %v", c.wei, got, err, c.want, c.err)
		}
	}
}

func TestBurnStreamRoundTrip(t *testing.T) {
	contract := Address{0xab, 19: 0xcd}
	s := BurnStream(1337, contract)
	if s != "evm:1337:0xab000000000000000000000000000000000000cd" {
		t.Fatalf("BurnStream = %q", s)
	}
	chain, c, err := ParseBurnStream(s)
	if err != nil || chain != 1337 || c != contract {
		t.Fatalf("ParseBurnStream(%q) = %d, %s, %v", s, chain, c, err)
	}
	for _, bad := range []string{"", "evm:1337", "evm:1337:0xab", "kaspa:1337:" + contract.Hex(), "evm:01337:" + contract.Hex(),
		"evm:1337:" + strings.ToUpper(contract.Hex()[2:]), "evm:1337:" + contract.Hex() + ":1", "evm:x:" + contract.Hex()} {
		if _, _, err := ParseBurnStream(bad); !errors.Is(err, ErrBadBurnStream) {
			t.Errorf("ParseBurnStream(%q): %v, want ErrBadBurnStream", bad, err)
		}
	}
}

func TestBurnSenderStreamRoundTrip(t *testing.T) {
	contract, sender := Address{0xab, 19: 0xcd}, Address{0x12, 19: 0x34}
	s := BurnSenderStream(1337, contract, sender)
	if s != "evm:1337:0xab000000000000000000000000000000000000cd:0x1200000000000000000000000000000000000034" {
		t.Fatalf("BurnSenderStream = %q", s)
	}
	if len(BurnSenderStream(^uint64(0), contract, sender)) > twophase.MaxStreamBytes {
		t.Fatalf("a sender stream can be longer than a signing event's %d bytes", twophase.MaxStreamBytes)
	}
	chain, c, from, err := ParseBurnSenderStream(s)
	if err != nil || chain != 1337 || c != contract || from != sender {
		t.Fatalf("ParseBurnSenderStream(%q) = %d, %s, %s, %v", s, chain, c, from, err)
	}
	for _, bad := range []string{"", BurnStream(1337, contract), s + ":1", BurnStream(1337, contract) + ":0x12",
		BurnStream(1337, contract) + ":" + strings.ToUpper(sender.Hex()[2:]), "evm:01337:" + contract.Hex() + ":" + sender.Hex()} {
		if _, _, _, err := ParseBurnSenderStream(bad); !errors.Is(err, ErrBadBurnStream) {
			t.Errorf("ParseBurnSenderStream(%q): %v, want ErrBadBurnStream", bad, err)
		}
	}
	if _, _, err := ParseBurnStream(s); !errors.Is(err, ErrBadBurnStream) {
		t.Errorf("ParseBurnStream read a sender stream: %v", err)
	}
}

func TestWithdrawalToKaspaSigningEvent(t *testing.T) {
	d := WithdrawalToKaspaDetected{Ref: LogRef{ChainID: 5, TxHash: Hash32{1}, LogIndex: 9}, Contract: Address{2}, BlockNumber: 77,
		BlockHash: Hash32{3}, OnChainID: 4, Amount: AmountFromUint64(3 * WeiPerSompi), Recipient: "kaspatest:qq"}
	ev, err := d.SigningEvent()
	if err != nil {
		t.Fatal(err)
	}
	if ev.Stream != BurnStream(5, Address{2}) || ev.Nonce != 4 || ev.Amount != 3 || ev.Destination != "kaspatest:qq" ||
		ev.Source.Chain != "evm:5" || ev.Source.TxHash != [32]byte(d.Ref.TxHash) || ev.Source.LogIndex != 9 || ev.Source.Block != 77 {
		t.Fatalf("signing event %+v", ev)
	}
	d.Withdrawer = Address{6}
	sev, err := d.SenderSigningEvent(2)
	want := ev
	want.Stream, want.Nonce = BurnSenderStream(5, Address{2}, Address{6}), 2
	if err != nil || sev != want {
		t.Fatalf("sender signing event %+v, %v; want %+v", sev, err, want)
	}
	for name, mutate := range map[string]func(*WithdrawalToKaspaDetected){
		"not whole sompi": func(d *WithdrawalToKaspaDetected) { d.Amount = AmountFromUint64(WeiPerSompi + 1) },
		"empty recipient": func(d *WithdrawalToKaspaDetected) { d.Recipient = "" },
		"long recipient":  func(d *WithdrawalToKaspaDetected) { d.Recipient = strings.Repeat("q", MaxKaspaRecipientBytes+1) },
	} {
		bad := d
		mutate(&bad)
		if _, err := bad.SigningEvent(); err == nil {
			t.Errorf("%s: converted", name)
		}
	}
}

// TestObservedEvents: the confirmer's events for each kind of observation;
// a burn toward Kaspa names the block it is confirmed in.
func TestObservedEvents(t *testing.T) {
	o := Observed{Ref: LogRef{ChainID: 1, TxHash: Hash32{1}}, BlockNumber: 10, BlockHash: Hash32{2}}
	if ev := o.Confirmed(15); ev != (DepositConfirmed{Ref: o.Ref, AtBlock: 15, Confirmation: 5}) {
		t.Fatalf("deposit confirmed: %+v", ev)
	}
	if ev := o.Reorged(Hash32{9}); ev != (ObservationReorged{Ref: o.Ref, Block: 10, BlockHash: Hash32{2}, NewHash: Hash32{9}}) {
		t.Fatalf("deposit reorged: %+v", ev)
	}
	o.Kind = ObservedWithdrawal
	if ev := o.Confirmed(15); ev != (WithdrawalConfirmed{Ref: o.Ref, AtBlock: 15, Confirmation: 5}) {
		t.Fatalf("withdrawal confirmed: %+v", ev)
	}
	if ev := o.Reorged(Hash32{9}); ev.EventType() != TypeWithdrawalReorged {
		t.Fatalf("withdrawal reorged: %+v", ev)
	}
	o.Kind = ObservedWithdrawalToKaspa
	c := o.Confirmed(15)
	if c != (WithdrawalToKaspaConfirmed{Ref: o.Ref, BlockHash: Hash32{2}, AtBlock: 15, Confirmation: 5}) {
		t.Fatalf("burn toward Kaspa confirmed: %+v", c)
	}
	again := Observed{Ref: o.Ref, Kind: o.Kind, BlockNumber: 11, BlockHash: Hash32{3}}.Confirmed(16)
	if again.SourceKey() == c.SourceKey() {
		t.Fatalf("a burn confirmed in another block has the same source key %q", c.SourceKey())
	}
	if ev := o.Reorged(Hash32{9}); ev != (WithdrawalToKaspaReorged{Ref: o.Ref, Block: 10, BlockHash: Hash32{2}, NewHash: Hash32{9}}) {
		t.Fatalf("burn toward Kaspa reorged: %+v", ev)
	}
}
