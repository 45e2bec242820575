package handlers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/merkle"
)

// BatchReader reads a settlement's batch sequence and the withdrawals
// waiting for a batch (batches and withdrawals projections).
type BatchReader interface {
	Sequence(ctx context.Context, s domain.Settlement) (domain.SequenceState, error)
	Unbatched(ctx context.Context, limit int) ([]domain.PendingWithdrawal, error)
}

// AnchoredRoots reads the root the chain holds for a batch id (zero:
// none yet).
type AnchoredRoots interface {
	AnchoredRoot(ctx context.Context, batchID uint64) (domain.Hash32, error)
}

// Batcher cuts sequential merkle batches of confirmed withdrawals: batch
// N+1 only after N is anchored, deterministic (same confirmed set, same
// root), bounded by a maximum size and a maximum wait.
type Batcher struct {
	Settlement domain.Settlement
	Reader     BatchReader
	// Chain, when set, is asked for the root of each batch before it is
	// cut. A root there that the cut does not give means the log lost
	// the batch (restored from an older copy): the batch is cut again to
	// match it ([domain.RecoverBatch]) instead of cutting one that could
	// never be anchored.
	Chain    AnchoredRoots
	Appender *Appender
	Policy   domain.BatchPolicy
	Now      func() time.Time
	Metrics  BatcherMetrics
	Logger   *slog.Logger
}

// Poll cuts the next batch if it is due, and returns it (nil if not).
func (b *Batcher) Poll(ctx context.Context) (*domain.BatchCreated, error) {
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	m, log := metricsOr(b.Metrics), loggerOr(b.Logger)
	pending, err := b.Reader.Unbatched(ctx, b.Policy.WithDefaults().MaxSize)
	if err != nil {
		return nil, err
	}
	// Seed 000 alerts when batch creation is delayed: export how long the
	// oldest confirmed withdrawal has waited for a batch.
	oldest := 0.0
	for _, w := range pending {
		if !w.ConfirmedAt.IsZero() {
			oldest = math.Max(oldest, now().Sub(w.ConfirmedAt).Seconds())
		}
	}
	m.OldestUnbatched(oldest)
	seq, err := b.Reader.Sequence(ctx, b.Settlement)
	if err != nil {
		return nil, err
	}
	if seq.LastBatchID > 0 && !seq.LastAnchored {
		return nil, nil // the sequence waits for the anchorer
	}
	plan, err := domain.PlanBatch(b.Settlement, seq, pending, b.Policy, now(), merkle.BatchLeaf, merkle.BatchRoot)
	if errors.Is(err, domain.ErrPreviousNotAnchored) || plan == nil {
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if plan, err = b.matchChain(ctx, seq, pending, plan); err != nil {
		return nil, err
	}
	if _, err := b.Appender.Append(ctx, Cause{CorrelationID: plan.SourceKey()}, *plan); err != nil {
		return nil, err
	}
	// Mark each withdrawal in its own partition. A crash before this is
	// healed by the anchorer, which appends the marks the withdrawals
	// projection does not hold.
	marks, err := BatchedMarks(*plan)
	if err != nil {
		return nil, err
	}
	if _, err := b.Appender.Append(ctx, Cause{CorrelationID: plan.SourceKey()}, marks...); err != nil {
		return nil, err
	}
	m.BatchCreated()
	log.Info("batch created", "batch_id", plan.BatchID, "merkle_root", plan.Root.Hex(), "leaf_count", len(plan.Leaves),
		"total_amount", plan.TotalAmount.String())
	return plan, nil
}

// matchChain returns plan, or the batch the chain anchored under plan's id
// when that is another cut (see Batcher.Chain).
func (b *Batcher) matchChain(ctx context.Context, seq domain.SequenceState, pending []domain.PendingWithdrawal,
	plan *domain.BatchCreated) (*domain.BatchCreated, error) {
	if b.Chain == nil {
		return plan, nil
	}
	onchain, err := b.Chain.AnchoredRoot(ctx, plan.BatchID)
	if err != nil || onchain == (domain.Hash32{}) || onchain == plan.Root {
		return plan, err
	}
	m, log := metricsOr(b.Metrics), loggerOr(b.Logger)
	got, err := domain.RecoverBatch(b.Settlement, seq, pending, b.Policy, onchain, merkle.BatchLeaf, merkle.BatchRoot)
	if err != nil {
		// The relay logs the failing step once per streak; each retry
		// only counts.
		m.BatchLost()
		log.Debug("batch anchored on chain is missing from the log", "batch_id", plan.BatchID,
			"onchain_root", onchain.Hex(), "error", err)
		return nil, err
	}
	m.BatchRecovered()
	log.Warn("batch recovered from its root on chain: the log had lost it", "batch_id", got.BatchID,
		"merkle_root", got.Root.Hex(), "leaf_count", len(got.Leaves))
	return got, nil
}

// AnchorQueue returns the batch to anchor, if any.
type AnchorQueue interface {
	ToAnchor(ctx context.Context, s domain.Settlement) (*domain.AnchorTask, error)
}

// AnchorChain is what the anchorer needs beyond the driver: the calls and
// the root a batch id has on chain.
type AnchorChain interface {
	Anchor(b domain.BatchCreated) domain.ContractCall
	AnchoredRoot(ctx context.Context, batchID uint64) (domain.Hash32, error)
}

// Anchorer stores batch roots on chain and then hands every leaf, with its
// proof, to the claim executors.
type Anchorer struct {
	Settlement domain.Settlement
	Queue      AnchorQueue
	Chain      AnchorChain
	Driver     *TxDriver
	Metrics    AnchorerMetrics
	Logger     *slog.Logger

	dryChecked map[uint64]bool // batches whose proofs a dry run verified
}

// Poll anchors the pending batch, if any, and reports whether it did.
func (a *Anchorer) Poll(ctx context.Context) (bool, error) {
	task, err := a.Queue.ToAnchor(ctx, a.Settlement)
	if err != nil || task == nil {
		return false, err
	}
	m, log := metricsOr(a.Metrics), loggerOr(a.Logger)
	b := task.Batch
	cause := Cause{CorrelationID: b.SourceKey()}
	if err := a.markMissing(ctx, task, cause); err != nil {
		return false, err
	}
	out, err := a.Driver.Drive(ctx, TxRequest{Purpose: domain.PurposeAnchor, Subject: b.SourceKey(), Call: a.Chain.Anchor(b), Open: task.Open, Cause: cause})
	if err != nil {
		return false, err
	}
	switch out.Status {
	case domain.TxSucceeded:
	case domain.TxReverted, domain.TxAlreadyProcessed:
		// Anchored before (a crash after the send, or another relayer):
		// the chain's root for this id is the judge.
		root, err := a.Chain.AnchoredRoot(ctx, b.BatchID)
		if err != nil {
			return false, err
		}
		if root != b.Root {
			ev := domain.BatchAnchorFailed{Settlement: b.Settlement, BatchID: b.BatchID, Reason: out.Reason, TxHash: out.TxHash}
			if _, err := a.Driver.Appender.Append(ctx, cause, ev); err != nil {
				return false, err
			}
			m.AnchorFailed()
			log.Error("merkle root anchoring failed", "batch_id", b.BatchID, "merkle_root", b.Root.Hex(), "onchain_root", root.Hex(), "error", out.Reason)
			return false, nil
		}
		log.Info("batch already anchored on chain", "batch_id", b.BatchID, "merkle_root", b.Root.Hex())
	case domain.TxDryRun:
		return false, a.dryRunClaims(b)
	default:
		return false, nil // replaced, abandoned: nothing final; the next poll retries
	}
	// Claims first, then the anchored mark: a crash between re-runs this
	// poll, whose claim requests are duplicates and change nothing.
	reqs, err := ClaimRequests(b)
	if err != nil {
		return false, err
	}
	if _, err := a.Driver.Appender.Append(ctx, cause, reqs...); err != nil {
		return false, err
	}
	anchored := domain.BatchAnchored{Settlement: b.Settlement, BatchID: b.BatchID, Root: b.Root, TxHash: out.TxHash,
		GasUsed: out.GasUsed, BlockNumber: out.BlockNumber}
	if _, err := a.Driver.Appender.Append(ctx, cause, anchored); err != nil {
		return false, err
	}
	m.BatchAnchored(out.GasUsed)
	log.Info("batch anchored", "batch_id", b.BatchID, "merkle_root", b.Root.Hex(), "tx_hash", out.TxHash.Hex(), "gas_used", out.GasUsed)
	return true, nil
}

// markMissing appends the withdrawal.batched marks of the task's batch
// that the batcher did not get to append (a crash between the batch and
// its marks). The relay's projections are caught up before this step,
// so a mark the batcher appended is seen and not appended twice; one on
// the log but not yet projected would be, and the projections
// deduplicate it.
func (a *Anchorer) markMissing(ctx context.Context, task *domain.AnchorTask, cause Cause) error {
	marks, err := BatchedMarks(task.Batch)
	if err != nil {
		return err
	}
	missing := marks[:0]
	for _, ev := range marks {
		if !task.Marked[ev.(domain.WithdrawalBatched).LeafIndex] {
			missing = append(missing, ev)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	loggerOr(a.Logger).Info("batch marks missing on withdrawals, appending them", "batch_id", task.Batch.BatchID,
		"missing", len(missing), "leaf_count", len(marks))
	_, err = a.Driver.Appender.Append(ctx, cause, missing...)
	return err
}

// dryRunClaims verifies every leaf's proof of a batch locally, as the
// claims would carry them, and says which claims it would send.
func (a *Anchorer) dryRunClaims(b domain.BatchCreated) error {
	if a.dryChecked[b.BatchID] {
		return nil
	}
	reqs, err := ClaimRequests(b)
	if err != nil {
		return err
	}
	log := loggerOr(a.Logger)
	for _, ev := range reqs {
		r := ev.(domain.ClaimRequested)
		if !merkle.VerifyClaim(r) {
			return fmt.Errorf("%w: dry-run batch %d leaf %d (%s)", ErrProofInvalid, b.BatchID, r.LeafInfo.Index, r.LeafInfo.Leaf.Hex())
		}
		log.Info("dry-run: would claim", "batch_id", b.BatchID, "leaf_index", r.LeafInfo.Index, "withdrawal_id",
			r.LeafInfo.Withdrawal.WithdrawalID(), "recipient", r.LeafInfo.Recipient.Hex(), "amount", r.LeafInfo.Amount.String(),
			"proof_len", len(r.Proof))
	}
	if a.dryChecked == nil {
		a.dryChecked = map[uint64]bool{}
	}
	a.dryChecked[b.BatchID] = true
	log.Info("dry-run: every proof of the batch verifies locally", "batch_id", b.BatchID, "merkle_root", b.Root.Hex(), "leaf_count", len(reqs))
	return nil
}

// BatchedMarks builds each withdrawal's batched event, with its proof.
func BatchedMarks(b domain.BatchCreated) ([]domain.Event, error) {
	proofs, err := merkle.BatchProofs(b)
	if err != nil {
		return nil, err
	}
	out := make([]domain.Event, len(b.Leaves))
	for i, l := range b.Leaves {
		out[i] = domain.WithdrawalBatched{Ref: l.Withdrawal, SequenceID: b.Settlement.SequenceID(), BatchID: b.BatchID,
			LeafIndex: l.Index, Leaf: l.Leaf, MerkleProof: proofs[i]}
	}
	return out, nil
}

// ClaimRequests builds one claim request, with its proof, per leaf.
func ClaimRequests(b domain.BatchCreated) ([]domain.Event, error) {
	proofs, err := merkle.BatchProofs(b)
	if err != nil {
		return nil, err
	}
	out := make([]domain.Event, len(b.Leaves))
	for i, l := range b.Leaves {
		out[i] = domain.ClaimRequested{Settlement: b.Settlement, BatchID: b.BatchID, Root: b.Root, LeafInfo: l, Proof: proofs[i]}
	}
	return out, nil
}
