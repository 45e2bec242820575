package main

import (
	"fmt"
	"io"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/schollz/progressbar/v3"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
)

// devnetProgress is the live display: one bar over deposits minted plus
// withdrawals claimed, its description naming the other stages.
type devnetProgress struct {
	bar  *progressbar.ProgressBar
	last string // what is shown; redraw only on change
}

func newDevnetProgress(w io.Writer, deposits, withdrawals int) *devnetProgress {
	return &devnetProgress{bar: progressbar.NewOptions(max(deposits+withdrawals, 1),
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("devnet"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
	)}
}

func (p *devnetProgress) show(s projections.BridgeStats) {
	d, w := s.Deposits, s.Withdrawals
	desc := fmt.Sprintf("deposits %d detected %d confirmed %d minted | withdrawals %d confirmed %d batched %d claimed | %d batches anchored",
		sum(d), d[string(domain.StatusConfirmed)], d[string(domain.StatusMinted)],
		w[string(domain.StatusConfirmed)], w[string(domain.StatusBatched)], w[string(domain.StatusExecuted)], s.Batches["ANCHORED"])
	if desc == p.last {
		return
	}
	p.last = desc
	p.bar.Describe(desc)
	_ = p.bar.Set(int(d[string(domain.StatusMinted)] + w[string(domain.StatusExecuted)]))
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// filterAll selects every log of one event of one contract.
func filterAll(addr common.Address, topic common.Hash) ethereum.FilterQuery {
	return ethereum.FilterQuery{FromBlock: big.NewInt(0), Addresses: []common.Address{addr}, Topics: [][]common.Hash{{topic}}}
}
