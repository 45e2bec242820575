package evmchain

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/domain"
)

// Errors of log decoding. Both leave the log unacted on; the indexer
// records them as error events with the reason.
var (
	ErrUnknownContract = errors.New("log from an unknown contract")
	ErrMalformedLog    = errors.New("malformed bridge log")
)

// Contracts are the bridge contracts a chain's indexer watches.
type Contracts struct {
	Distributor domain.Address // lock side: DepositLocked, RootAnchored, Claimed
	Token       domain.Address // execution side: WithdrawalBurned, WithdrawalToKaspa, DepositMinted
}

// Addresses lists the watched contracts.
func (w Contracts) Addresses() []domain.Address {
	var out []domain.Address
	if w.Distributor != (domain.Address{}) {
		out = append(out, w.Distributor)
	}
	if w.Token != (domain.Address{}) && w.Token != w.Distributor {
		out = append(out, w.Token)
	}
	return out
}

// Decoder turns contract logs into domain events.
type Decoder struct {
	chainID     uint64
	w           Contracts
	distributor *contracts.BatchDistributor
	token       *contracts.BridgeToken
	// Event signatures, looked up once: Decode runs on every log.
	depositTopic, burnTopic, toKaspaTopic [32]byte
}

// NewDecoder decodes logs of chainID's watched contracts.
func NewDecoder(chainID uint64, w Contracts) *Decoder {
	d := &Decoder{chainID: chainID, w: w, distributor: contracts.NewBatchDistributor(), token: contracts.NewBridgeToken()}
	d.depositTopic = d.distributor.GetABI().Events["DepositLocked"].ID
	d.burnTopic = d.token.GetABI().Events["WithdrawalBurned"].ID
	d.toKaspaTopic = d.token.GetABI().Events["WithdrawalToKaspa"].ID
	return d
}

// Decode returns the domain event of a bridge log, or (nil, nil) for a
// log of a watched contract that starts no flow (roles, claims, anchors,
// mints: the relayer learns their outcome from its own receipts).
func (d *Decoder) Decode(l *types.Log) (domain.Event, error) {
	ref := domain.LogRef{ChainID: d.chainID, TxHash: domain.Hash32(l.TxHash), LogIndex: uint32(l.Index)}
	addr := domain.Address(l.Address)
	if len(l.Topics) == 0 {
		return nil, fmt.Errorf("%w: %s has no topics", ErrMalformedLog, ref.Key())
	}
	switch addr {
	case d.w.Distributor:
		if l.Topics[0] != d.depositTopic {
			return nil, nil
		}
		ev, err := d.distributor.UnpackDepositLockedEvent(l)
		if err != nil {
			return nil, fmt.Errorf("%w: %s DepositLocked: %v", ErrMalformedLog, ref.Key(), err)
		}
		amt, err := amount(ev.Amount, ref)
		if err != nil {
			return nil, err
		}
		return domain.DepositDetected{
			Ref: ref, Contract: addr, BlockNumber: l.BlockNumber, BlockHash: domain.Hash32(l.BlockHash),
			OnChainID: ev.Id.Uint64(), Depositor: domain.Address(ev.Depositor), Amount: amt, Recipient: domain.Address(ev.Recipient),
		}, nil
	case d.w.Token:
		if l.Topics[0] == d.toKaspaTopic {
			return d.decodeToKaspa(l, ref)
		}
		if l.Topics[0] != d.burnTopic {
			return nil, nil
		}
		ev, err := d.token.UnpackWithdrawalBurnedEvent(l)
		if err != nil {
			return nil, fmt.Errorf("%w: %s WithdrawalBurned: %v", ErrMalformedLog, ref.Key(), err)
		}
		amt, err := amount(ev.Amount, ref)
		if err != nil {
			return nil, err
		}
		return domain.WithdrawalDetected{
			Ref: ref, Contract: addr, BlockNumber: l.BlockNumber, BlockHash: domain.Hash32(l.BlockHash),
			OnChainID: ev.Id.Uint64(), Withdrawer: domain.Address(ev.Withdrawer), Amount: amt, Recipient: domain.Address(ev.Recipient),
		}, nil
	}
	return nil, fmt.Errorf("%w: %s at %s", ErrUnknownContract, ref.Key(), addr.Hex())
}

// decodeToKaspa decodes a burn toward Kaspa. A log that makes no signing
// event (an amount that is not whole sompi, a recipient out of bounds, an
// id past 64 bits) cannot come from the contract, which refuses such
// burns: it is malformed.
func (d *Decoder) decodeToKaspa(l *types.Log, ref domain.LogRef) (domain.Event, error) {
	ev, err := d.token.UnpackWithdrawalToKaspaEvent(l)
	if err != nil {
		return nil, fmt.Errorf("%w: %s WithdrawalToKaspa: %v", ErrMalformedLog, ref.Key(), err)
	}
	if !ev.Id.IsUint64() {
		return nil, fmt.Errorf("%w: %s WithdrawalToKaspa id %v", ErrMalformedLog, ref.Key(), ev.Id)
	}
	amt, err := amount(ev.Amount, ref)
	if err != nil {
		return nil, err
	}
	out := domain.WithdrawalToKaspaDetected{
		Ref: ref, Contract: domain.Address(l.Address), BlockNumber: l.BlockNumber, BlockHash: domain.Hash32(l.BlockHash),
		OnChainID: ev.Id.Uint64(), Withdrawer: domain.Address(ev.Withdrawer), Amount: amt, Recipient: ev.KaspaRecipient,
	}
	if _, err := out.SigningEvent(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedLog, err)
	}
	return out, nil
}

func amount(v *big.Int, ref domain.LogRef) (domain.Amount, error) {
	a, err := domain.NewAmount(v)
	if err != nil || !v.IsUint64() && v.BitLen() > 256 {
		return a, fmt.Errorf("%w: %s amount %v", ErrMalformedLog, ref.Key(), v)
	}
	return a, nil
}
