package handlers

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"

	"github.com/bridgelog/bridgelog/domain"
)

// MintQueue lists confirmed deposits not yet minted or failed.
type MintQueue interface {
	MintPending(ctx context.Context, limit int) ([]domain.MintTask, error)
}

// MintCalls packs the mint call of a deposit (evmchain.Calls).
type MintCalls interface {
	Mint(d domain.DepositDetected) domain.ContractCall
}

// Minter mints confirmed deposits on the execution chain, seed 000's
// state-checked processing: only CONFIRMED deposits are taken, every mint
// goes through an intent, a mint the token already made (its per-deposit
// guard) completes the deposit, and only the token's own revert marks it
// FAILED with the reason. What the relayer caused (a gas limit too low, a
// transaction abandoned for its fees) is never the deposit's failure.
type Minter struct {
	Queue  MintQueue
	Calls  MintCalls
	Driver *TxDriver
	// Pool, if set, are more wallets to mint with: each wallet sends one
	// transaction at a time (its nonces stay in order), so deposits are
	// spread over the wallets and mint in parallel.
	Pool []*TxDriver
	// Retiring wallets take no new deposit: they only see through the
	// deposits they have open intents for (see WalletRetirer).
	Retiring []*TxDriver
	// Governor, if set, decides which deposits may be minted now; the
	// others are held (a deposit with open intents is always seen through).
	Governor *MintGovernor
	Batch    int // deposits per poll, default 50
	Metrics  MinterMetrics
	Logger   *slog.Logger
}

// Poll mints what is pending and returns how many deposits it finished.
func (mn *Minter) Poll(ctx context.Context) (int, error) {
	n := mn.Batch
	if n <= 0 {
		n = 50
	}
	tasks, err := mn.Queue.MintPending(ctx, n)
	if err != nil {
		return 0, err
	}
	if mn.Governor != nil {
		ok, err := mn.Governor.Admit(ctx)
		if err != nil {
			return 0, err
		}
		tasks = slices.DeleteFunc(tasks, func(t domain.MintTask) bool { return len(t.Open) == 0 && !ok[t.Deposit.AggregateID()] })
	}
	active := 1 + len(mn.Pool)
	drivers := append(append([]*TxDriver{mn.Driver}, mn.Pool...), mn.Retiring...)
	// A deposit with open intents stays with the wallet that signed them;
	// new deposits are spread over the active wallets.
	byDriver := make([][]domain.MintTask, len(drivers))
	for i, t := range tasks {
		k := i % active
		if len(t.Open) > 0 {
			for j, d := range drivers {
				if d.Chain.From() == t.Open[0].From {
					k = j
				}
			}
		}
		byDriver[k] = append(byDriver[k], t)
	}
	var wg sync.WaitGroup
	done := make([]int, len(drivers))
	errs := make([]error, len(drivers))
	for k, d := range drivers {
		if len(byDriver[k]) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, t := range byDriver[k] {
				ok, err := mn.mint(ctx, d, t)
				if isRateLimitDeferral(err) {
					// The token's bucket is short: the deposits after this
					// one wait with it, in order, until it refills.
					return
				}
				if errors.Is(err, ErrSigning) && d.Health != nil {
					// The wallet's signer is down: its health says so
					// once; its deposits wait for it, the others mint.
					return
				}
				if err != nil {
					errs[k] = err
					return
				}
				if ok {
					done[k]++
				}
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, n := range done {
		total += n
	}
	return total, errors.Join(errs...)
}

// mint sees one deposit through with one wallet; ok says it is final.
func (mn *Minter) mint(ctx context.Context, drv *TxDriver, t domain.MintTask) (bool, error) {
	m, log := metricsOr(mn.Metrics), loggerOr(mn.Logger)
	d := t.Deposit
	log.Log(ctx, attemptLevel(drv, domain.PurposeMint, d.AggregateID()), "processing deposit", "deposit_id", d.AggregateID(), "tx_hash", d.Ref.TxHash.Hex(), "block_number", d.BlockNumber,
		"amount", d.Amount.String(), "recipient", d.Recipient.Hex(), "wallet", drv.Chain.From().Hex())
	out, err := drv.Drive(ctx, TxRequest{Purpose: domain.PurposeMint, Subject: d.AggregateID(), Call: mn.Calls.Mint(d),
		Open: t.Open, Cause: Cause{CorrelationID: d.AggregateID()}})
	if err != nil {
		return false, err
	}
	var ev domain.Event
	switch out.Status {
	case domain.TxSucceeded, domain.TxAlreadyProcessed:
		ev = domain.DepositMinted{Ref: d.Ref, MintTxHash: out.TxHash, GasUsed: out.GasUsed, BlockNumber: out.BlockNumber}
		m.DepositMinted(out.GasUsed)
		log.Info("deposit minted", "deposit_id", d.AggregateID(), "mint_tx_hash", out.TxHash.Hex(), "gas_used", out.GasUsed,
			"block_number", out.BlockNumber, "already_done", out.Status == domain.TxAlreadyProcessed)
	case domain.TxReverted:
		ev = domain.DepositFailed{Ref: d.Ref, Reason: string(out.Status) + ": " + out.Reason}
		m.DepositFailed()
		log.Error("deposit mint failed", "deposit_id", d.AggregateID(), "error", out.Reason, "error_type", string(out.Status))
	default:
		// Replaced by a foreign transaction, abandoned (our fees, a busy
		// node), out of gas at the cap (our limit) or dry-run: nothing is
		// final for the deposit; the next poll drives it again. The
		// token's per-deposit guard keeps a late-mined earlier attempt
		// from minting twice.
		return false, nil
	}
	if _, err := drv.Appender.Append(ctx, Cause{CorrelationID: d.AggregateID()}, ev); err != nil {
		return false, err
	}
	return true, nil
}
