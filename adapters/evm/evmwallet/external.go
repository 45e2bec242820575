package evmwallet

import (
	"context"
	"errors"
	"fmt"
)

// ErrExternal: an external signer that refused, failed or did not answer.
var ErrExternal = errors.New("external signer")

func openExternal(_ context.Context, spec Spec) (TxSigner, error) {
	return nil, fmt.Errorf("%w %s: %w at %s: not available", ErrWallet, spec.Name, ErrExternal, spec.External)
}
