package domain

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// Event type names of a burn toward Kaspa (the token's WithdrawalToKaspa
// log), which the signing group pays. Part of the log format.
const (
	TypeWithdrawalToKaspaDetected  = "withdrawal_to_kaspa.detected"
	TypeWithdrawalToKaspaConfirmed = "withdrawal_to_kaspa.confirmed"
	TypeWithdrawalToKaspaReorged   = "withdrawal_to_kaspa.reorged"
)

// WeiPerSompi is how many base units of the token (18 decimals) make one
// sompi (Kaspa's base unit, 8 decimals): the contract's WEI_PER_SOMPI.
const WeiPerSompi = 10_000_000_000

// MaxKaspaRecipientBytes is the longest recipient the contract accepts.
const MaxKaspaRecipientBytes = 100

// MinKaspaPayoutSompi is the default least burn toward Kaspa, in sompi:
// the token's minKaspaSompi at deployment. A payout output of A sompi
// has a KIP-9 storage mass of about C/A with C = SompiPerKaspa * 10,000 =
// 10^12 (kaspad's storageMassParameter), and a node relays no transaction
// whose mass is over the standard 100,000: A >= 10^12 / 100,000 =
// 10,000,000 sompi (0.1 KAS, 10^17 wei of the token). It is also far
// above the dust threshold of a P2PK or P2SH output (a few hundred
// sompi). A burn under it could never be paid, so the token refuses it.
const MinKaspaPayoutSompi = 10_000_000

// FirstBurnID is the id of a contract's first burn toward Kaspa: where its
// stream starts, as every signing stream does (twophase.FirstNonce).
const FirstBurnID = twophase.FirstNonce

// Errors of a burn toward Kaspa that cannot become a signing event.
var (
	// ErrNotWholeSompi: the amount is not a whole number of sompi, or
	// more sompi than a signing event carries. The contract refuses such
	// a burn; a log that has one is not from it.
	ErrNotWholeSompi = errors.New("amount is not a whole number of sompi")
	// ErrBadKaspaRecipient: the recipient is empty or longer than
	// [MaxKaspaRecipientBytes].
	ErrBadKaspaRecipient = errors.New("bad kaspa recipient")
	// ErrBadBurnStream: a stream that is not of the form [BurnStream]
	// writes.
	ErrBadBurnStream = errors.New("not an evm burn stream")
)

// EVMChain names an EVM chain as a signing event's source: "evm:<chain id>".
func EVMChain(chainID uint64) string { return "evm:" + strconv.FormatUint(chainID, 10) }

// BurnStream is the signing stream of a contract's burns toward Kaspa:
// "evm:<chain id>:<contract>", the contract in lower-case 0x-hex. Its
// nonces are the burns' ids.
func BurnStream(chainID uint64, contract Address) string {
	return EVMChain(chainID) + ":" + contract.Hex()
}

// ParseBurnStream reads back what [BurnStream] writes, exactly.
func ParseBurnStream(s string) (chainID uint64, contract Address, err error) {
	parts := strings.Split(s, ":")
	if len(parts) == 3 && parts[0] == "evm" {
		chainID, err = strconv.ParseUint(parts[1], 10, 64)
		if err == nil {
			contract, err = ParseAddress(parts[2])
		}
		if err == nil && BurnStream(chainID, contract) == s {
			return chainID, contract, nil
		}
	}
	return 0, Address{}, fmt.Errorf("%w: %q: want evm:<chain id>:<0x contract>", ErrBadBurnStream, s)
}

// BurnSenderStream is the signing stream of one sender's burns toward
// Kaspa on a contract: "evm:<chain id>:<contract>:<sender>", both in
// lower-case 0x-hex. It is seed 001's semantic stream (1.4.2: nonces per
// origin and sender), whose nonces number the sender's burns in burn id
// order from [FirstBurnID]: a Profile B group runs one event of each
// stream at a time, so streams per sender let different senders'
// withdrawals be paid at once while each sender's stay in order.
func BurnSenderStream(chainID uint64, contract, sender Address) string {
	return BurnStream(chainID, contract) + ":" + sender.Hex()
}

// ParseBurnSenderStream reads back what [BurnSenderStream] writes, exactly.
func ParseBurnSenderStream(s string) (chainID uint64, contract, sender Address, err error) {
	if i := strings.LastIndexByte(s, ':'); i > 0 {
		chainID, contract, err = ParseBurnStream(s[:i])
		if err == nil {
			sender, err = ParseAddress(s[i+1:])
		}
		if err == nil && BurnSenderStream(chainID, contract, sender) == s {
			return chainID, contract, sender, nil
		}
	}
	return 0, Address{}, Address{}, fmt.Errorf("%w: %q: want evm:<chain id>:<0x contract>:<0x sender>", ErrBadBurnStream, s)
}

// SompiOf converts a token amount to sompi, exactly: an amount that is not
// a whole number of sompi, or does not fit a uint64, is refused, never
// rounded.
func SompiOf(a Amount) (uint64, error) {
	q, r := new(big.Int).QuoRem(&a.v, big.NewInt(WeiPerSompi), new(big.Int))
	if r.Sign() != 0 || !q.IsUint64() {
		return 0, fmt.Errorf("%w: %s wei", ErrNotWholeSompi, a.String())
	}
	return q.Uint64(), nil
}

// WithdrawalToKaspaID is the aggregate id of the burn toward Kaspa made by
// log r.
func (r LogRef) WithdrawalToKaspaID() string { return "withdrawal_to_kaspa:" + r.Key() }

// WithdrawalToKaspaDetected: a WithdrawalToKaspa log was seen. The indexer
// records only logs that make a signing event ([SigningEvent] succeeds);
// whether Recipient is a valid Kaspa address is the signers' to check.
type WithdrawalToKaspaDetected struct {
	Ref         LogRef  `msgpack:"ref" json:"ref"`
	Contract    Address `msgpack:"contract" json:"contract"`
	BlockNumber uint64  `msgpack:"block_number" json:"blockNumber"`
	BlockHash   Hash32  `msgpack:"block_hash" json:"blockHash"`
	OnChainID   uint64  `msgpack:"onchain_id" json:"onChainId"` // the stream's nonce
	Withdrawer  Address `msgpack:"withdrawer" json:"withdrawer"`
	Amount      Amount  `msgpack:"amount" json:"amount"` // in the token's base units
	Recipient   string  `msgpack:"recipient" json:"recipient"`
}

func (e WithdrawalToKaspaDetected) EventType() string   { return TypeWithdrawalToKaspaDetected }
func (e WithdrawalToKaspaDetected) SourceKey() string   { return observationKey(e.Ref, e.BlockHash) }
func (e WithdrawalToKaspaDetected) AggregateID() string { return e.Ref.WithdrawalToKaspaID() }

// SigningEvent is the request the burn makes of the signing group: the
// BurnStream of its contract, its id as nonce, amount/WeiPerSompi sompi to
// its recipient, and where it was seen.
func (e WithdrawalToKaspaDetected) SigningEvent() (twophase.SigningEvent, error) {
	if n := len(e.Recipient); n == 0 || n > MaxKaspaRecipientBytes {
		return twophase.SigningEvent{}, fmt.Errorf("%w: %d bytes (%s)", ErrBadKaspaRecipient, n, e.Ref.Key())
	}
	sompi, err := SompiOf(e.Amount)
	if err != nil {
		return twophase.SigningEvent{}, fmt.Errorf("%w (%s)", err, e.Ref.Key())
	}
	return twophase.SigningEvent{
		Stream:      BurnStream(e.Ref.ChainID, e.Contract),
		Nonce:       e.OnChainID,
		Destination: e.Recipient,
		Amount:      sompi,
		Source: twophase.SourceRef{Chain: EVMChain(e.Ref.ChainID), TxHash: twophase.Hash(e.Ref.TxHash),
			LogIndex: e.Ref.LogIndex, Block: e.BlockNumber},
	}, nil
}

// SenderSigningEvent is the request the burn makes in its sender's
// stream ([BurnSenderStream]) as the sender's nonce-th burn: SigningEvent's
// payout and source under the sender's stream and nonce.
func (e WithdrawalToKaspaDetected) SenderSigningEvent(nonce uint64) (twophase.SigningEvent, error) {
	ev, err := e.SigningEvent()
	if err != nil {
		return ev, err
	}
	ev.Stream, ev.Nonce = BurnSenderStream(e.Ref.ChainID, e.Contract, e.Withdrawer), nonce
	return ev, nil
}

// WithdrawalToKaspaConfirmed: the burn's log is at least the confirmation
// depth deep in block BlockHash, still canonical. It names the block
// because a burn seen again in another block (after a reorg) is confirmed
// anew there.
type WithdrawalToKaspaConfirmed struct {
	Ref          LogRef `msgpack:"ref" json:"ref"`
	BlockHash    Hash32 `msgpack:"block_hash" json:"blockHash"`
	AtBlock      uint64 `msgpack:"at_block" json:"atBlock"`
	Confirmation uint64 `msgpack:"depth" json:"depth"`
}

func (e WithdrawalToKaspaConfirmed) EventType() string { return TypeWithdrawalToKaspaConfirmed }
func (e WithdrawalToKaspaConfirmed) SourceKey() string {
	return e.Ref.WithdrawalToKaspaID() + "/confirmed@" + e.BlockHash.Hex()
}
func (e WithdrawalToKaspaConfirmed) AggregateID() string { return e.Ref.WithdrawalToKaspaID() }

// WithdrawalToKaspaReorged: the burn's log was seen in a block that is no
// longer canonical; that sighting is never handed to the signers.
type WithdrawalToKaspaReorged struct {
	Ref       LogRef `msgpack:"ref" json:"ref"`
	Block     uint64 `msgpack:"block" json:"block"`
	BlockHash Hash32 `msgpack:"block_hash" json:"blockHash"`
	NewHash   Hash32 `msgpack:"new_hash" json:"newHash"`
}

func (e WithdrawalToKaspaReorged) EventType() string { return TypeWithdrawalToKaspaReorged }
func (e WithdrawalToKaspaReorged) SourceKey() string {
	return e.Ref.WithdrawalToKaspaID() + "/reorged/" + e.BlockHash.Hex()
}
func (e WithdrawalToKaspaReorged) AggregateID() string { return e.Ref.WithdrawalToKaspaID() }

// TypeSigningRequestRefused names an external signing request a signer
// refused.
const TypeSigningRequestRefused = "signing_request.refused"

// SigningRequestRefused: an external request for a signing event (a
// signer's authenticated RPC entry point) that the signer did not take:
// malformed, or its source not proven on the signer's own node. Nothing
// acts on it; it is kept for the audit trail and counted.
type SigningRequestRefused struct {
	Via    string                `msgpack:"via" json:"via"`
	Event  twophase.SigningEvent `msgpack:"event" json:"event"` // as requested, as far as it could be read
	Reason string                `msgpack:"reason" json:"reason"`
}

func (e SigningRequestRefused) EventType() string { return TypeSigningRequestRefused }

// SourceKey: the same request refused for the same reason is one fact.
func (e SigningRequestRefused) SourceKey() string {
	s := e.Event.Source
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%s\x00%d\x00%d\x00%s", e.Via, s.Chain, s.TxHash.Hex(), s.LogIndex, s.Block, e.Reason))
	return fmt.Sprintf("%s/%s/refused/%x", e.AggregateID(), e.Event.ID().Hex(), h[:8])
}
func (e SigningRequestRefused) AggregateID() string { return "signing_request:" + e.Event.Stream }
