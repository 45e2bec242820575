package evmchain

import (
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/domain"
)

func TestDecodeBridgeLogs(t *testing.T) {
	w := Contracts{Distributor: domain.Address{0xd1}, Token: domain.Address{0x70}}
	dec := NewDecoder(1337, w)
	dist, tok := contracts.NewBatchDistributor(), contracts.NewBridgeToken()
	depID := dist.GetABI().Events["DepositLocked"].ID
	burnID := tok.GetABI().Events["WithdrawalBurned"].ID
	word := func(v int64) []byte { return common.LeftPadBytes(big.NewInt(v).Bytes(), 32) }
	addrWord := func(a byte) []byte { return common.LeftPadBytes([]byte{a}, 32) }
	data := append(word(500), addrWord(0xee)...) // amount, recipient
	deposit := types.Log{Address: common.Address(w.Distributor), TxHash: common.Hash{9}, Index: 4, BlockNumber: 12,
		Topics: []common.Hash{depID, common.BigToHash(big.NewInt(7)), common.BytesToHash(addrWord(0xaa))}, Data: data}
	ev, err := dec.Decode(&deposit)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := ev.(domain.DepositDetected)
	if !ok || d.OnChainID != 7 || d.Amount.String() != "500" || d.Recipient != (domain.Address{19: 0xee}) ||
		d.Depositor != (domain.Address{19: 0xaa}) || d.Ref.LogIndex != 4 || d.BlockNumber != 12 {
		t.Fatalf("deposit decoded as %+v", ev)
	}
	burn := deposit
	burn.Address, burn.Topics = common.Address(w.Token), []common.Hash{burnID, common.BigToHash(big.NewInt(3)), common.BytesToHash(addrWord(0xbb))}
	if ev, err := dec.Decode(&burn); err != nil || ev.(domain.WithdrawalDetected).OnChainID != 3 {
		t.Fatalf("burn: %+v %v", ev, err)
	}

	cases := map[string]struct {
		log  types.Log
		want error
	}{
		"unknown contract": {types.Log{Address: common.Address{0x99}, Topics: []common.Hash{depID}}, ErrUnknownContract},
		"no topics":        {types.Log{Address: common.Address(w.Distributor)}, ErrMalformedLog},
		"short data": {types.Log{Address: common.Address(w.Distributor), Topics: deposit.Topics, Data: data[:40]},
			ErrMalformedLog},
		"missing indexed topic": {types.Log{Address: common.Address(w.Token), Topics: []common.Hash{burnID}, Data: data},
			ErrMalformedLog},
	}
	for name, c := range cases {
		if _, err := dec.Decode(&c.log); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", name, err, c.want)
		}
	}
	// A watched contract's other events start no flow.
	other := types.Log{Address: common.Address(w.Distributor), Topics: []common.Hash{dist.GetABI().Events["RootAnchored"].ID}}
	if ev, err := dec.Decode(&other); ev != nil || err != nil {
		t.Fatalf("RootAnchored: %v %v, want ignored", ev, err)
	}
}

func TestDecodeWithdrawalToKaspa(t *testing.T) {
	w := Contracts{Distributor: domain.Address{0xd1}, Token: domain.Address{0x70}}
	dec := NewDecoder(1337, w)
	ev := contracts.NewBridgeToken().GetABI().Events["WithdrawalToKaspa"]
	const recipient = "kaspa:qz0s9f7vzg5dpm0q4s2fgcse3ghv5uahyd0ldcfl5vy3ar7t6q05lnwr2mtkx"
	burn := func(id *big.Int, amount *big.Int, to string) *types.Log {
		data, err := ev.Inputs.NonIndexed().Pack(amount, to)
		if err != nil {
			t.Fatal(err)
		}
		return &types.Log{Address: common.Address(w.Token), TxHash: common.Hash{7}, Index: 3, BlockNumber: 40, BlockHash: common.Hash{4},
			Topics: []common.Hash{ev.ID, common.BigToHash(id), common.BytesToHash([]byte{0xbb})}, Data: data}
	}
	got, err := dec.Decode(burn(big.NewInt(2), big.NewInt(25e10), recipient))
	if err != nil {
		t.Fatal(err)
	}
	d, ok := got.(domain.WithdrawalToKaspaDetected)
	if !ok || d.OnChainID != 2 || d.Amount.String() != "250000000000" || d.Recipient != recipient || d.Contract != w.Token ||
		d.Withdrawer != (domain.Address{19: 0xbb}) || d.Ref != (domain.LogRef{ChainID: 1337, TxHash: domain.Hash32{7}, LogIndex: 3}) ||
		d.BlockNumber != 40 || d.BlockHash != (domain.Hash32{4}) {
		t.Fatalf("decoded %+v", got)
	}
	se, err := d.SigningEvent()
	if err != nil || se.Stream != "evm:1337:0x7000000000000000000000000000000000000000" || se.Nonce != 2 || se.Amount != 25 ||
		se.Destination != recipient || se.Source.Chain != "evm:1337" || se.Source.Block != 40 || se.Source.LogIndex != 3 {
		t.Fatalf("signing event %+v, %v", se, err)
	}

	huge := new(big.Int).Lsh(big.NewInt(1), 64)
	for name, l := range map[string]*types.Log{
		"amount not whole sompi":   burn(big.NewInt(1), big.NewInt(25e10+1), recipient),
		"more sompi than 64 bits":  burn(big.NewInt(1), new(big.Int).Mul(huge, big.NewInt(1e10)), recipient),
		"empty recipient":          burn(big.NewInt(1), big.NewInt(1e10), ""),
		"recipient over 100 bytes": burn(big.NewInt(1), big.NewInt(1e10), recipient+recipient),
		"id past 64 bits":          burn(huge, big.NewInt(1e10), recipient),
	} {
		if ev, err := dec.Decode(l); !errors.Is(err, ErrMalformedLog) {
			t.Errorf("%s: decoded %+v, %v; want ErrMalformedLog", name, ev, err)
		}
	}
}
