package contracts

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// Reasons the contracts revert with. Relayers test for them with errors.Is on the result of
// [DecodeRevert]; ErrAlreadyProcessed and ErrAlreadyMinted mean an earlier attempt already
// succeeded (self-heal: mark done, do not retry), and so does ErrAlreadyRefunded.
var (
	ErrAlreadyProcessed   = errors.New("already processed")
	ErrAlreadyMinted      = errors.New("already minted")
	ErrAlreadyRefunded    = errors.New("already refunded")
	ErrInvalidProof       = errors.New("invalid proof")
	ErrUnknownBatch       = errors.New("unknown batch")
	ErrInsufficientLocked = errors.New("insufficient locked balance")
	ErrTransferFailed     = errors.New("transfer failed")
	ErrZeroAmount         = errors.New("zero amount")
	ErrZeroRecipient      = errors.New("zero recipient")
	ErrBatchOutOfSequence = errors.New("batch out of sequence")
	ErrEmptyRoot          = errors.New("empty root")
	ErrUnauthorized       = errors.New("caller lacks the role")
	ErrInsufficientFunds  = errors.New("insufficient token balance")
	// ErrAmountNotWholeSompi: a burn toward Kaspa that is not a whole number of sompi
	// (WEI_PER_SOMPI); it is refused, never rounded.
	ErrAmountNotWholeSompi = errors.New("amount is not a whole number of sompi")
	// ErrBadKaspaRecipient: a burn toward Kaspa whose recipient's payload is not of a payable
	// address's length, or whose recipient is over-long.
	ErrBadKaspaRecipient = errors.New("bad kaspa recipient")
	// ErrKaspaBelowMinimum: a burn toward Kaspa under the token's minKaspaSompi, a payout no
	// Kaspa node would relay.
	ErrKaspaBelowMinimum = errors.New("burn toward kaspa below the minimum")
	// ErrWrongKaspaPrefix: a burn toward Kaspa whose recipient is not of the token's network.
	ErrWrongKaspaPrefix = errors.New("kaspa recipient of another network")
	// ErrBadKaspaAddressCharacter: a burn toward Kaspa whose recipient has a character outside
	// bech32's alphabet, or a version no payout can go to.
	ErrBadKaspaAddressCharacter = errors.New("bad character in kaspa recipient")
	// ErrRateLimited: the contract's bucket holds less than the call moves now; it refills
	// (RateLimited names how many seconds until it holds enough). The call is early, not wrong.
	ErrRateLimited = errors.New("rate limited")
	// ErrOverRateLimitCapacity: the call moves more than the bucket can ever hold; it can run
	// once the admin raises the capacity.
	ErrOverRateLimitCapacity = errors.New("over the rate limit's capacity")
	// ErrUnknownRevert is a revert whose reason is none of the above.
	ErrUnknownRevert = errors.New("unrecognised revert")
)

// reasonErrors maps the Error(string) reasons in src/*.sol to their sentinels.
var reasonErrors = map[string]error{
	"already processed":           ErrAlreadyProcessed,
	"already minted":              ErrAlreadyMinted,
	"already refunded":            ErrAlreadyRefunded,
	"invalid proof":               ErrInvalidProof,
	"unknown batch":               ErrUnknownBatch,
	"insufficient locked balance": ErrInsufficientLocked,
	"transfer failed":             ErrTransferFailed,
	"zero amount":                 ErrZeroAmount,
	"zero recipient":              ErrZeroRecipient,
}

// customErrors maps custom error names (ours and OpenZeppelin's) to sentinels.
var customErrors = map[string]error{
	"BatchOutOfSequence":               ErrBatchOutOfSequence,
	"EmptyRoot":                        ErrEmptyRoot,
	"AccessControlUnauthorizedAccount": ErrUnauthorized,
	"ERC20InsufficientBalance":         ErrInsufficientFunds,
	"AmountNotWholeSompi":              ErrAmountNotWholeSompi,
	"BadKaspaRecipient":                ErrBadKaspaRecipient,
	"KaspaAmountBelowMinimum":          ErrKaspaBelowMinimum,
	"WrongKaspaPrefix":                 ErrWrongKaspaPrefix,
	"BadKaspaAddressCharacter":         ErrBadKaspaAddressCharacter,
	"RateLimited":                      ErrRateLimited,
	"RateLimitOverCapacity":            ErrOverRateLimitCapacity,
	"BadRateLimit":                     ErrBadRateLimit,
}

// RevertError is a decoded revert. It unwraps to one of the Err* sentinels.
type RevertError struct {
	// Reason is the Error(string) text, or the custom error's name.
	Reason string
	// Args are the custom error's arguments by name (e.g. "expected", "got" of
	// BatchOutOfSequence, as *big.Int); nil for Error(string).
	Args map[string]any
	// Data is the raw revert data.
	Data []byte
	kind error
}

func (e *RevertError) Error() string {
	if len(e.Args) == 0 {
		return "execution reverted: " + e.Reason
	}
	var b strings.Builder
	fmt.Fprintf(&b, "execution reverted: %s(", e.Reason)
	first := true
	for _, k := range slices.Sorted(maps.Keys(e.Args)) {
		if !first {
			b.WriteString(", ")
		}
		first = false
		fmt.Fprintf(&b, "%s=%v", k, e.Args[k])
	}
	b.WriteString(")")
	return b.String()
}

func (e *RevertError) Unwrap() error { return e.kind }

// DecodeRevert returns err joined with a *[RevertError] when err carries revert data (as
// errors from eth_call and eth_estimateGas do), so errors.Is(err, ErrAlreadyProcessed) and
// errors.As(err, &*RevertError) work; otherwise it returns err unchanged. A transaction that
// reverts once mined carries no data: re-run it as a call at its block to learn why.
func DecodeRevert(err error) error {
	if err == nil {
		return nil
	}
	var de rpc.DataError
	if !errors.As(err, &de) {
		return err
	}
	s, ok := de.ErrorData().(string)
	if !ok {
		return err
	}
	data, derr := hexutil.Decode(s)
	if derr != nil || len(data) < 4 {
		return err
	}
	return fmt.Errorf("%w (%w)", decodeData(data), err)
}

// DecodeRevertData decodes raw revert data; it never fails: unknown data gives a RevertError
// that unwraps to ErrUnknownRevert.
func DecodeRevertData(data []byte) *RevertError { return decodeData(data) }

func decodeData(data []byte) *RevertError {
	if reason, err := abi.UnpackRevert(data); err == nil {
		kind, ok := reasonErrors[reason]
		if !ok {
			kind = ErrUnknownRevert
		}
		return &RevertError{Reason: reason, Data: data, kind: kind}
	}
	if len(data) >= 4 {
		for _, a := range errorABIs() {
			for name, e := range a.Errors {
				if !bytes.Equal(e.ID[:4], data[:4]) {
					continue
				}
				args := map[string]any{}
				if len(e.Inputs) > 0 {
					if err := e.Inputs.UnpackIntoMap(args, data[4:]); err != nil {
						break
					}
				}
				kind, ok := customErrors[name]
				if !ok {
					kind = ErrUnknownRevert
				}
				return &RevertError{Reason: name, Args: args, Data: data, kind: kind}
			}
		}
	}
	return &RevertError{Reason: hexutil.Encode(data), Data: data, kind: ErrUnknownRevert}
}

// errorABIs are parsed once: decoding runs on every failed call of a relayer loop.
var errorABIs = sync.OnceValue(func() []*abi.ABI {
	return []*abi.ABI{&NewBatchDistributor().abi, &NewBridgeToken().abi}
})
