package evmwallet

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/bridgelog/bridgelog/domain"
)

var (
	// ErrExternal: an external signer that refused, failed or did not answer.
	ErrExternal = errors.New("external signer")
	// ErrExternalRefused: the signer answered with an error (a rule or its
	// operator declined), or signed something other than what was asked.
	ErrExternalRefused = fmt.Errorf("%w refused", ErrExternal)
	// ErrExternalUnavailable: the signer did not answer in time or could
	// not be reached.
	ErrExternalUnavailable = fmt.Errorf("%w unavailable", ErrExternal)
)

// DefaultExternalTimeout bounds each call to an external signer. A clef
// that asks its operator to confirm answers within it or not at all.
const DefaultExternalTimeout = 10 * time.Second

// externalTimeout is the bound of each call to spec's external signer:
// the spec's own, else the options', else the default.
func (spec Spec) externalTimeout(opt Options) (time.Duration, error) {
	if spec.Timeout != "" {
		d, err := time.ParseDuration(spec.Timeout)
		if err != nil || d <= 0 {
			return 0, fmt.Errorf("%w %s: %w: timeout %q is not a positive duration (\"30s\")", ErrWallet, spec.Name, ErrSpec, spec.Timeout)
		}
		return d, nil
	}
	if opt.ExternalTimeout > 0 {
		return opt.ExternalTimeout, nil
	}
	return DefaultExternalTimeout, nil
}

// externalSigner signs through a signer speaking the clef protocol
// (account_signTransaction over JSON-RPC): the key never leaves it.
// go-ethereum's accounts/external.ExternalSigner speaks the same protocol
// but takes no context, so its calls could not be bounded.
type externalSigner struct {
	name     string
	address  domain.Address
	endpoint string // for messages: without credentials
	client   *rpc.Client
	timeout  time.Duration
}

func openExternal(ctx context.Context, spec Spec, opt Options) (TxSigner, error) {
	timeout, err := spec.externalTimeout(opt)
	if err != nil {
		return nil, err
	}
	s := &externalSigner{name: spec.Name, address: spec.Address, endpoint: redact(spec.External), timeout: timeout}
	if spec.Address == (domain.Address{}) {
		return nil, fmt.Errorf("%w %s: %w: an external signer's wallet needs its address", ErrWallet, spec.Name, ErrSpec)
	}
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	client, err := rpc.DialContext(cctx, spec.External)
	if err != nil {
		return nil, s.fail(err)
	}
	s.client = client
	// The version call needs no approval on clef: it proves the endpoint
	// speaks the protocol before the relay relies on it.
	var version string
	if err := client.CallContext(cctx, &version, "account_version"); err != nil {
		client.Close()
		return nil, s.fail(err)
	}
	return s, nil
}

func (s *externalSigner) Address() domain.Address { return s.address }

// signTransactionResult is clef's answer to account_signTransaction.
type signTransactionResult struct {
	Raw hexutil.Bytes      `json:"raw"`
	Tx  *types.Transaction `json:"tx"`
}

// SignTx asks the signer to sign tx and checks that what comes back is tx,
// signed by this wallet's address.
func (s *externalSigner) SignTx(ctx context.Context, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error) {
	args, err := sendTxArgs(s.address, tx, chainID)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrWallet, s.name, err)
	}
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	var res signTransactionResult
	if err := s.client.CallContext(cctx, &res, "account_signTransaction", args); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err() // the caller stopped: not the signer's failure
		}
		return nil, s.fail(err)
	}
	signed := res.Tx
	if len(res.Raw) > 0 {
		signed = new(types.Transaction)
		if err := signed.UnmarshalBinary(res.Raw); err != nil {
			return nil, s.refused("its signed transaction does not decode: %v", err)
		}
	}
	if signed == nil {
		return nil, s.refused("it returned no transaction")
	}
	signer := types.LatestSignerForChainID(chainID)
	if signer.Hash(signed) != signer.Hash(tx) {
		return nil, s.refused("it signed a transaction other than the one asked (%s)", signed.Hash())
	}
	from, err := types.Sender(signer, signed)
	if err != nil {
		return nil, s.refused("its signature does not verify: %v", err)
	}
	if domain.Address(from) != s.address {
		return nil, s.refused("it signed as %s, not as %s", from, s.address)
	}
	return signed, nil
}

// sendTxArgs are the protocol's arguments for tx, as accounts/external
// builds them.
func sendTxArgs(from domain.Address, tx *types.Transaction, chainID *big.Int) (*apitypes.SendTxArgs, error) {
	data := hexutil.Bytes(tx.Data())
	args := &apitypes.SendTxArgs{Input: &data, Nonce: hexutil.Uint64(tx.Nonce()), Value: hexutil.Big(*tx.Value()),
		Gas: hexutil.Uint64(tx.Gas()), From: common.NewMixedcaseAddress(common.Address(from)), ChainID: (*hexutil.Big)(chainID)}
	if tx.To() != nil {
		to := common.NewMixedcaseAddress(*tx.To())
		args.To = &to
	}
	switch tx.Type() {
	case types.LegacyTxType:
		args.GasPrice = (*hexutil.Big)(tx.GasPrice())
	case types.DynamicFeeTxType:
		args.MaxFeePerGas, args.MaxPriorityFeePerGas = (*hexutil.Big)(tx.GasFeeCap()), (*hexutil.Big)(tx.GasTipCap())
		al := tx.AccessList()
		args.AccessList = &al
	default:
		return nil, fmt.Errorf("transaction type %d not supported by the external signer wallet", tx.Type())
	}
	return args, nil
}

// fail classifies a failed call: an error answer is a refusal, anything
// else (timeout, connection, HTTP status) leaves the signer unavailable.
func (s *externalSigner) fail(err error) error {
	var answer rpc.Error
	if errors.As(err, &answer) {
		return fmt.Errorf("%w %s: %w (%s): %v", ErrWallet, s.name, ErrExternalRefused, s.endpoint, err)
	}
	return fmt.Errorf("%w %s: %w (%s): %v", ErrWallet, s.name, ErrExternalUnavailable, s.endpoint, err)
}

func (s *externalSigner) refused(format string, a ...any) error {
	return fmt.Errorf("%w %s: %w (%s): %s", ErrWallet, s.name, ErrExternalRefused, s.endpoint, fmt.Sprintf(format, a...))
}

// redact drops the credentials of an endpoint URL for messages.
func redact(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || u.User == nil {
		return endpoint
	}
	return u.Redacted()
}
