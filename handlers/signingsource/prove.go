package signingsource

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers"
)

// ProofChain is what a source proof reads of the signer's own EVM node
// (evmchain.Client).
type ProofChain interface {
	ChainID() uint64
	Tip(ctx context.Context) (uint64, error)
	HashAt(ctx context.Context, n uint64) (domain.Hash32, error)
	// Receipt is a transaction's receipt, nil when the node knows no mined
	// transaction of that hash.
	Receipt(ctx context.Context, tx domain.Hash32) (*types.Receipt, error)
}

// ErrUnproven wraps every reason a source proof fails; errors.Is tells
// each reason apart. Any other error (the node could not be read) says
// nothing of the event: ask again.
var ErrUnproven = errors.New("signing event source not proven")

// Reasons a source proof fails.
var (
	// ErrUnwatchedStream: the stream is not a burn stream of a contract
	// the signer watches.
	ErrUnwatchedStream = errors.New("stream of no watched contract")
	// ErrWrongChain: the event names another chain than the signer's node.
	ErrWrongChain = errors.New("source on another chain")
	// ErrNoReceipt: the node knows no mined transaction Source.TxHash.
	ErrNoReceipt = errors.New("no receipt for the source transaction")
	// ErrTxFailed: the source transaction reverted.
	ErrTxFailed = errors.New("source transaction reverted")
	// ErrNoLog: the receipt has no log at Source.LogIndex.
	ErrNoLog = errors.New("no log at the source log index")
	// ErrWrongContract: the log was emitted by another contract than the
	// stream's.
	ErrWrongContract = errors.New("source log from another contract")
	// ErrNotABurn: the log is not a burn toward Kaspa.
	ErrNotABurn = errors.New("source log is not a burn toward Kaspa")
	// ErrEventMismatch: the burn makes another event (nonce, destination,
	// amount or block differ).
	ErrEventMismatch = errors.New("source burn is another event")
	// ErrNotCanonical: the log's block is no longer on the node's chain.
	ErrNotCanonical = errors.New("source block not canonical")
	// ErrNotDeep: the log's block is not yet depth deep; it may be later.
	ErrNotDeep = errors.New("source block not deep enough yet")
	// ErrUnnumbered: in a sender's stream, the burn's nonce is unknown
	// while a lower burn id of its contract is neither confirmed on the
	// signer's node nor proven; it may be later.
	ErrUnnumbered = errors.New("a lower burn id is not known yet")
)

// reasons label each reason in metrics.
var reasons = []struct {
	err   error
	label string
}{
	{ErrUnwatchedStream, "unwatched_stream"}, {ErrWrongChain, "wrong_chain"}, {ErrNoReceipt, "no_receipt"},
	{ErrTxFailed, "tx_failed"}, {ErrNoLog, "no_log"}, {ErrWrongContract, "wrong_contract"}, {ErrNotABurn, "not_a_burn"},
	{ErrEventMismatch, "event_mismatch"}, {ErrNotCanonical, "not_canonical"}, {ErrNotDeep, "not_deep"},
	{ErrUnnumbered, "unnumbered"},
}

// ReasonLabel names why err refused an event: a reason's label, or
// "malformed" for a request that could not be read.
func ReasonLabel(err error) string {
	for _, r := range reasons {
		if errors.Is(err, r.err) {
			return r.label
		}
	}
	return "malformed"
}

func unproven(reason error, format string, a ...any) error {
	return fmt.Errorf("%w: %w: %s", ErrUnproven, reason, fmt.Sprintf(format, a...))
}

// ProveSource checks ev against the signer's own node: the receipt of
// ev.Source.TxHash holds, at ev.Source.LogIndex, a burn toward Kaspa from
// the contract ev.Stream names (one of watched), which dec decodes to
// exactly ev, in a block still canonical and at least depth deep (0:
// domain.DefaultConfirmationDepth). It is the source proof of an event
// the signer's own indexer has not confirmed: a peer's proposal or an
// external request.
func ProveSource(ctx context.Context, chain ProofChain, dec handlers.LogDecoder, watched []domain.Address,
	ev twophase.SigningEvent, depth uint64) error {
	chainID, contract, err := domain.ParseBurnStream(ev.Stream)
	if err != nil || !slices.Contains(watched, contract) {
		return unproven(ErrUnwatchedStream, "stream %q", ev.Stream)
	}
	burn, err := sourceBurn(ctx, chain, dec, chainID, contract, ev)
	if err != nil {
		return err
	}
	if err := sameEvent(burn.SigningEvent, ev); err != nil {
		return err
	}
	return provenDeep(ctx, chain, burn, depth)
}

// ProveSenderSource is ProveSource for a group whose streams are per
// sender: ev.Stream is a sender's stream on a watched contract
// ([domain.BurnSenderStream]), the burn is that sender's, and ev.Nonce is
// its nonce in senders' numbering, which must have numbered every lower
// burn id (ErrUnnumbered until then). A proven burn is numbered.
func ProveSenderSource(ctx context.Context, chain ProofChain, dec handlers.LogDecoder, watched []domain.Address,
	senders *SenderNonces, ev twophase.SigningEvent, depth uint64) error {
	chainID, contract, sender, err := domain.ParseBurnSenderStream(ev.Stream)
	if err != nil || !slices.Contains(watched, contract) {
		return unproven(ErrUnwatchedStream, "stream %q", ev.Stream)
	}
	burn, err := sourceBurn(ctx, chain, dec, chainID, contract, ev)
	if err != nil {
		return err
	}
	if burn.Withdrawer != sender {
		return unproven(ErrEventMismatch, "burn id %d was sent by %s, the stream is %s's", burn.OnChainID, burn.Withdrawer.Hex(), sender.Hex())
	}
	nonce, err := senders.peek(burn)
	switch {
	case errors.Is(err, errUnnumbered):
		return unproven(ErrUnnumbered, "%v", err)
	case err != nil:
		return unproven(ErrEventMismatch, "%v", err)
	}
	if err := sameEvent(func() (twophase.SigningEvent, error) { return burn.SenderSigningEvent(nonce) }, ev); err != nil {
		return err
	}
	if err := provenDeep(ctx, chain, burn, depth); err != nil {
		return err
	}
	// The numbering may have moved on meanwhile; it numbers a burn id
	// once, so only a different burn under this id can disagree.
	if got, err := senders.Number(burn); err != nil || got != nonce {
		return unproven(ErrEventMismatch, "burn id %d numbered %d meanwhile (%v)", burn.OnChainID, got, err)
	}
	return nil
}

// sourceBurn reads the burn ev's source names on the signer's own node:
// on the stream's chain, from a successful transaction, the log at
// ev.Source.LogIndex, emitted by contract, decoded as a burn toward
// Kaspa.
func sourceBurn(ctx context.Context, chain ProofChain, dec handlers.LogDecoder, chainID uint64, contract domain.Address,
	ev twophase.SigningEvent) (domain.WithdrawalToKaspaDetected, error) {
	var none domain.WithdrawalToKaspaDetected
	if own := chain.ChainID(); chainID != own || ev.Source.Chain != domain.EVMChain(own) {
		return none, unproven(ErrWrongChain, "stream %q, source %q; the node is on %s", ev.Stream, ev.Source.Chain, domain.EVMChain(own))
	}
	tx := domain.Hash32(ev.Source.TxHash)
	rc, err := chain.Receipt(ctx, tx)
	if err != nil {
		return none, err
	}
	if rc == nil {
		return none, unproven(ErrNoReceipt, "tx %s", tx.Hex())
	}
	if rc.Status != types.ReceiptStatusSuccessful {
		return none, unproven(ErrTxFailed, "tx %s", tx.Hex())
	}
	i := slices.IndexFunc(rc.Logs, func(l *types.Log) bool { return l.Index == uint(ev.Source.LogIndex) })
	if i < 0 {
		return none, unproven(ErrNoLog, "tx %s has no log %d", tx.Hex(), ev.Source.LogIndex)
	}
	l := rc.Logs[i]
	if domain.Address(l.Address) != contract {
		return none, unproven(ErrWrongContract, "log %d of tx %s is from %s, the stream's contract is %s", l.Index, tx.Hex(),
			domain.Address(l.Address).Hex(), contract.Hex())
	}
	decoded, err := dec.Decode(l)
	burn, ok := decoded.(domain.WithdrawalToKaspaDetected)
	if err != nil || !ok {
		return none, unproven(ErrNotABurn, "log %d of tx %s: %v", l.Index, tx.Hex(), err)
	}
	return burn, nil
}

// sameEvent checks that the event the burn makes is ev.
func sameEvent(makes func() (twophase.SigningEvent, error), ev twophase.SigningEvent) error {
	seen, err := makes()
	if err != nil {
		return unproven(ErrNotABurn, "%v", err)
	}
	if seen != ev {
		return unproven(ErrEventMismatch, "the node's burn is %s (block %d), the event %s (block %d)", seen, seen.Source.Block,
			ev, ev.Source.Block)
	}
	return nil
}

// provenDeep checks that the burn's block is canonical and depth deep, as
// the confirmer decides ([domain.Confirm]).
func provenDeep(ctx context.Context, chain ProofChain, burn domain.WithdrawalToKaspaDetected, depth uint64) error {
	depth = domain.ConfirmationDepth(depth)
	tip, err := chain.Tip(ctx)
	if err != nil {
		return err
	}
	now, err := chain.HashAt(ctx, burn.BlockNumber)
	if err != nil {
		return err
	}
	switch domain.Confirm(burn.BlockNumber, burn.BlockHash, domain.CanonicalView{Tip: tip, HashAtLogBlock: now}, depth) {
	case domain.Confirmed:
		return nil
	case domain.Reorged:
		return unproven(ErrNotCanonical, "block %d was %s, the node's is %s", burn.BlockNumber, burn.BlockHash.Hex(), now.Hex())
	}
	return unproven(ErrNotDeep, "block %d, tip %d, depth %d", burn.BlockNumber, tip, depth)
}
