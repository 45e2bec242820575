package analytics

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
)

// Sections of a story: the parts people read it in.
const (
	SectionChain        = "chain"        // the chain log, as seen and reorged
	SectionConfirmation = "confirmation" // deep enough, still canonical
	SectionBatch        = "batch"        // the leaf, its proof, the batch it is in
	SectionAnchor       = "anchor"       // the batch root's transaction
	SectionClaim        = "claim"        // the leaf's claim transactions
	SectionMint         = "mint"         // a deposit's mint transactions
	SectionOutcome      = "outcome"      // paid, or failed and why
	SectionSigning      = "signing"      // a Kaspa payout's signing event: request, rounds, commits, signatures
	SectionPayout       = "payout"       // the Kaspa transaction: submitted, accepted, confirmed
	SectionOther        = "other"
)

// stepOf tells one relay event: its section, facts, links and sentence.
func stepOf(r AuditRow) StoryStep {
	s := StoryStep{At: recordedAt(r), Kind: r.Type, Log: r.Topic, Partition: r.Partition, Offset: r.Offset,
		order: r.RecordedMs, Section: SectionOther}
	body := decodeRow(r)
	if body == nil {
		s.add("aggregate", r.AggregateID)
		if r.DecodeError != "" {
			s.add("decode_error", r.DecodeError)
		}
		s.Explain = fmt.Sprintf("%s was recorded for %s", r.Type, r.AggregateID)
		return s
	}
	if !tellChain(&s, body) && !tellOutcome(&s, body) && !tellBatch(&s, body) && !tellTx(&s, body) && !tellKaspaDeposit(&s, body) {
		s.add("aggregate", r.AggregateID)
		s.Explain = fmt.Sprintf("%s was recorded for %s", r.Type, r.AggregateID)
	}
	return s
}

func (s *StoryStep) add(name, value string) {
	if value != "" {
		s.Facts = append(s.Facts, StoryFact{Name: name, Value: value})
	}
}

func (s *StoryStep) link(keys ...string) {
	for _, k := range keys {
		if k != "" && k != "0x" {
			s.Links = append(s.Links, projections.NormalizeAuditKey(k))
		}
	}
}

func u64(v uint64) string { return strconv.FormatUint(v, 10) }

// tellChain: the chain logs of deposits, withdrawals and burns toward
// Kaspa, and their confirmation.
func tellChain(s *StoryStep, body any) bool {
	switch b := body.(type) {
	case *domain.WithdrawalDetected:
		s.Section = SectionChain
		logFacts(s, b.Ref, b.BlockNumber, b.BlockHash)
		s.add("withdrawer", b.Withdrawer.Hex())
		s.add("recipient", b.Recipient.Hex())
		s.add("amount", b.Amount.String())
		s.Explain = fmt.Sprintf("the burn of %s by %s for %s was seen in block %d (tx %s, log %d)",
			b.Amount, b.Withdrawer.Hex(), b.Recipient.Hex(), b.BlockNumber, b.Ref.TxHash.Hex(), b.Ref.LogIndex)
	case *domain.DepositDetected:
		s.Section = SectionChain
		logFacts(s, b.Ref, b.BlockNumber, b.BlockHash)
		s.add("depositor", b.Depositor.Hex())
		s.add("recipient", b.Recipient.Hex())
		s.add("amount", b.Amount.String())
		s.Explain = fmt.Sprintf("the deposit of %s by %s for %s was seen in block %d (tx %s, log %d)",
			b.Amount, b.Depositor.Hex(), b.Recipient.Hex(), b.BlockNumber, b.Ref.TxHash.Hex(), b.Ref.LogIndex)
	case *domain.WithdrawalToKaspaDetected:
		s.Section = SectionChain
		logFacts(s, b.Ref, b.BlockNumber, b.BlockHash)
		s.add("withdrawer", b.Withdrawer.Hex())
		s.add("kaspa_recipient", b.Recipient)
		s.add("amount", b.Amount.String())
		s.add("burn_id", u64(b.OnChainID))
		s.Explain = fmt.Sprintf("the burn of %s by %s toward Kaspa address %s was seen in block %d (tx %s, log %d)",
			b.Amount, b.Withdrawer.Hex(), b.Recipient, b.BlockNumber, b.Ref.TxHash.Hex(), b.Ref.LogIndex)
	case *domain.ChainLogRejected:
		s.Section = SectionChain
		s.add("chain", u64(b.Ref.ChainID))
		s.add("tx", b.Ref.TxHash.Hex())
		s.add("log_index", strconv.FormatUint(uint64(b.Ref.LogIndex), 10))
		s.add("contract", b.Contract.Hex())
		s.add("block", u64(b.Block))
		s.add("reason", b.Reason)
		s.Explain = fmt.Sprintf("the log %s of block %d was rejected by the indexer: %s", b.Ref.Key(), b.Block, b.Reason)
	case *domain.ObservationReorged:
		s.Section = SectionChain
		s.add("block", u64(b.Block))
		s.add("block_hash", b.BlockHash.Hex())
		s.add("canonical_hash", b.NewHash.Hex())
		s.Explain = fmt.Sprintf("block %d was reorged out (now %s): that sighting is never acted on", b.Block, b.NewHash.Hex())
	case *domain.WithdrawalToKaspaReorged:
		s.Section = SectionChain
		s.add("block", u64(b.Block))
		s.add("block_hash", b.BlockHash.Hex())
		s.add("canonical_hash", b.NewHash.Hex())
		s.Explain = fmt.Sprintf("block %d was reorged out (now %s): that sighting is never handed to the signers", b.Block, b.NewHash.Hex())
	case *domain.WithdrawalConfirmed:
		confirmed(s, "withdrawal", b.Confirmation, b.AtBlock)
	case *domain.DepositConfirmed:
		confirmed(s, "deposit", b.Confirmation, b.AtBlock)
	case *domain.WithdrawalToKaspaConfirmed:
		confirmed(s, "burn", b.Confirmation, b.AtBlock)
		s.add("block_hash", b.BlockHash.Hex())
	default:
		return false
	}
	return true
}

// tellOutcome: how a withdrawal or deposit ended.
func tellOutcome(s *StoryStep, body any) bool {
	switch b := body.(type) {
	case *domain.WithdrawalExecuted:
		s.Section = SectionOutcome
		s.add("batch", u64(b.BatchID))
		s.add("claim_tx", b.ClaimTxHash.Hex())
		s.add("gas_used", u64(b.GasUsed))
		s.link(b.ClaimTxHash.Hex())
		s.Explain = fmt.Sprintf("the withdrawal was paid by claim %s (%d gas)", b.ClaimTxHash.Hex(), b.GasUsed)
		if b.AlreadyDone {
			s.add("already_done", "true")
			s.Explain = fmt.Sprintf("the withdrawal's leaf was found already claimed on chain (tx %s)", b.ClaimTxHash.Hex())
		}
	case *domain.DepositMinted:
		s.Section = SectionOutcome
		s.add("mint_tx", b.MintTxHash.Hex())
		s.add("block", u64(b.BlockNumber))
		s.add("gas_used", u64(b.GasUsed))
		s.link(b.MintTxHash.Hex())
		s.Explain = fmt.Sprintf("the deposit was minted by %s in block %d (%d gas)", b.MintTxHash.Hex(), b.BlockNumber, b.GasUsed)
	case *domain.WithdrawalFailed:
		failed(s, "withdrawal", b.Reason)
	case *domain.DepositFailed:
		failed(s, "deposit", b.Reason)
	default:
		return false
	}
	return true
}

func logFacts(s *StoryStep, ref domain.LogRef, block uint64, hash domain.Hash32) {
	s.add("chain", u64(ref.ChainID))
	s.add("tx", ref.TxHash.Hex())
	s.add("log_index", strconv.FormatUint(uint64(ref.LogIndex), 10))
	s.add("block", u64(block))
	s.add("block_hash", hash.Hex())
	s.link(ref.TxHash.Hex())
}

func confirmed(s *StoryStep, what string, depth, at uint64) {
	s.Section = SectionConfirmation
	s.add("depth", u64(depth))
	s.add("at_block", u64(at))
	s.Explain = fmt.Sprintf("the %s was confirmed %d blocks deep at block %d", what, depth, at)
}

func failed(s *StoryStep, what, reason string) {
	s.Section = SectionOutcome
	s.add("reason", reason)
	s.Explain = fmt.Sprintf("the %s failed: %s", what, reason)
}

// tellBatch: the withdrawal's leaf, its batch and the batch's anchor.
func tellBatch(s *StoryStep, body any) bool {
	switch b := body.(type) {
	case *domain.WithdrawalBatched:
		s.Section = SectionBatch
		key := projections.BatchKey(b.SequenceID, b.BatchID)
		s.add("batch", key)
		s.add("leaf_index", strconv.FormatUint(uint64(b.LeafIndex), 10))
		s.add("leaf", b.Leaf.Hex())
		s.add("merkle_proof", hashList(b.MerkleProof))
		s.link(key, b.Leaf.Hex())
		s.Explain = fmt.Sprintf("the withdrawal became leaf %d (%s) of batch %d, with a merkle proof of %d hashes",
			b.LeafIndex, b.Leaf.Hex(), b.BatchID, len(b.MerkleProof))
	case *domain.BatchCreated:
		s.Section = SectionBatch
		s.add("batch", projections.BatchKey(b.Settlement.SequenceID(), b.BatchID))
		s.add("root", b.Root.Hex())
		s.add("leaves", strconv.Itoa(len(b.Leaves)))
		s.add("total", b.TotalAmount.String())
		s.Explain = fmt.Sprintf("batch %d was created with %d leaves totalling %s, root %s",
			b.BatchID, len(b.Leaves), b.TotalAmount, b.Root.Hex())
	case *domain.BatchAnchored:
		s.Section = SectionAnchor
		s.add("root", b.Root.Hex())
		s.add("tx", b.TxHash.Hex())
		s.add("block", u64(b.BlockNumber))
		s.add("gas_used", u64(b.GasUsed))
		s.link(b.TxHash.Hex())
		s.Explain = fmt.Sprintf("batch %d's root was anchored by %s in block %d (%d gas)", b.BatchID, b.TxHash.Hex(), b.BlockNumber, b.GasUsed)
	case *domain.BatchAnchorFailed:
		s.Section = SectionAnchor
		s.add("tx", b.TxHash.Hex())
		s.add("reason", b.Reason)
		s.link(b.TxHash.Hex())
		s.Explain = fmt.Sprintf("anchoring batch %d failed (%s): the sequence stops until an operator acts", b.BatchID, b.Reason)
	case *domain.ClaimRequested:
		s.Section = SectionClaim
		claim := domain.ClaimID(b.Settlement, b.LeafInfo.Leaf)
		s.add("claim", claim)
		s.add("withdrawal", b.LeafInfo.Withdrawal.WithdrawalID())
		s.add("leaf", b.LeafInfo.Leaf.Hex())
		s.add("amount", b.LeafInfo.Amount.String())
		s.link(claim, b.LeafInfo.Withdrawal.WithdrawalID())
		s.Explain = fmt.Sprintf("the claim of leaf %d (%s) was handed to the claim executors", b.LeafInfo.Index, b.LeafInfo.Leaf.Hex())
	default:
		return false
	}
	return true
}

// tellTx: a mint, anchor or claim transaction's intent and outcome.
func tellTx(s *StoryStep, body any) bool {
	switch b := body.(type) {
	case *domain.TxIntent:
		s.Section = txSection(b.Purpose)
		s.add("tx", b.TxHash.Hex())
		s.add("attempt", strconv.Itoa(b.Attempt))
		s.add("nonce", u64(b.Nonce))
		s.add("from", b.From.Hex())
		s.add("gas_limit", u64(b.Gas))
		s.add("fee_cap", b.GasFeeCap.String())
		s.add("tip_cap", b.GasTipCap.String())
		s.link(b.TxHash.Hex())
		what := fmt.Sprintf("%s transaction %s (attempt %d, nonce %d, gas limit %d)", b.Purpose, b.TxHash.Hex(), b.Attempt, b.Nonce, b.Gas)
		if b.Cancel {
			s.add("cancel", "true")
			what = fmt.Sprintf("a cancel of the %s at nonce %d (%s)", b.Purpose, b.Nonce, b.TxHash.Hex())
		}
		s.Explain = "the relay sent " + what
	case *domain.TxOutcome:
		s.Section = txSection(b.Purpose)
		s.add("tx", b.TxHash.Hex())
		s.add("status", string(b.Status))
		s.add("block", u64(b.BlockNumber))
		s.add("gas_used", u64(b.GasUsed))
		s.add("reason", b.Reason)
		s.link(b.TxHash.Hex())
		s.Explain = txOutcomeWords(b)
	default:
		return false
	}
	return true
}

func txSection(p domain.Purpose) string {
	switch p {
	case domain.PurposeMint:
		return SectionMint
	case domain.PurposeAnchor:
		return SectionAnchor
	}
	return SectionClaim
}

func txOutcomeWords(b *domain.TxOutcome) string {
	switch b.Status {
	case domain.TxSucceeded:
		return fmt.Sprintf("the %s transaction %s succeeded in block %d (%d gas)", b.Purpose, b.TxHash.Hex(), b.BlockNumber, b.GasUsed)
	case domain.TxAlreadyProcessed:
		return fmt.Sprintf("the %s transaction %s found the work already done (%d gas)", b.Purpose, b.TxHash.Hex(), b.GasUsed)
	case domain.TxReverted:
		return fmt.Sprintf("the %s transaction %s reverted in block %d (%d gas): %s", b.Purpose, b.TxHash.Hex(), b.BlockNumber, b.GasUsed, b.Reason)
	}
	msg := fmt.Sprintf("the %s transaction %s ended %s", b.Purpose, b.TxHash.Hex(), strings.ReplaceAll(string(b.Status), "_", " "))
	if b.Reason != "" {
		msg += ": " + b.Reason
	}
	return msg
}

func hashList(hs []domain.Hash32) string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Hex()
	}
	return strings.Join(out, " ")
}

// recordedAt is when an event was recorded, to the millisecond: the
// warehouse keeps recorded_at in whole seconds and the milliseconds
// beside it, so both finders give the same time.
func recordedAt(r AuditRow) time.Time {
	if r.RecordedMs != 0 {
		return time.UnixMilli(r.RecordedMs).UTC()
	}
	return r.RecordedAt.UTC()
}
