package kaspanode

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kaspanet/kaspad/app/appmessage"
	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// Session is one connection to a node for a caller that asks a few things
// and goes (kaspadproc's node harness, a devnet): no redial, no check of
// the node's network or UTXO index, no metrics. A lost connection fails
// every later call with ErrUnavailable; open another session. Safe for
// concurrent use; requests go one at a time (see conn).
type Session struct {
	node    string
	timeout time.Duration
	slot    chan struct{}
	cn      *conn
}

// Open connects to the node's gRPC server at node (host:port). timeout
// bounds the dial and each call (default 10 s).
func Open(ctx context.Context, node string, timeout time.Duration) (*Session, error) {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cn, err := dial(ctx, node)
	if err != nil {
		return nil, err
	}
	return &Session{node: node, timeout: timeout, slot: make(chan struct{}, 1), cn: cn}, nil
}

// Close closes the connection. Calls after Close fail with ErrUnavailable.
func (s *Session) Close() { s.cn.fail(errors.New("session closed")) }

// sessionAsk sends req within the call timeout and returns the answer
// as T.
func sessionAsk[T appmessage.Message](ctx context.Context, s *Session, name string, req appmessage.Message) (T, error) {
	var zero T
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	select {
	case s.slot <- struct{}{}:
	case <-ctx.Done():
		return zero, fmt.Errorf("%w: %s on %s: waiting for the connection: %w", ErrUnavailable, name, s.node, ctx.Err())
	}
	defer func() { <-s.slot }()
	t, err := ask[T](ctx, s.cn, req)
	if err != nil {
		return zero, fmt.Errorf("%s on %s: %w", name, s.node, err)
	}
	return t, nil
}

// Info is the node's GetInfo answer (version, sync state, UTXO index).
func (s *Session) Info(ctx context.Context) (*appmessage.GetInfoResponseMessage, error) {
	const name = "get_info"
	r, err := sessionAsk[*appmessage.GetInfoResponseMessage](ctx, s, name, appmessage.NewGetInfoRequestMessage())
	if err == nil && r.Error != nil {
		return nil, &NodeError{Call: name, Message: r.Error.Message}
	}
	return r, err
}

// VirtualDAAScore is the node's virtual DAA score.
func (s *Session) VirtualDAAScore(ctx context.Context) (uint64, error) {
	r, err := s.dagInfo(ctx)
	if err != nil {
		return 0, err
	}
	return r.VirtualDAAScore, nil
}

// BlockCount is how many blocks the node holds.
func (s *Session) BlockCount(ctx context.Context) (uint64, error) {
	r, err := s.dagInfo(ctx)
	if err != nil {
		return 0, err
	}
	return r.BlockCount, nil
}

func (s *Session) dagInfo(ctx context.Context) (*appmessage.GetBlockDAGInfoResponseMessage, error) {
	const name = "get_block_dag_info"
	r, err := sessionAsk[*appmessage.GetBlockDAGInfoResponseMessage](ctx, s, name, appmessage.NewGetBlockDAGInfoRequestMessage())
	if err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, &NodeError{Call: name, Message: r.Error.Message}
	}
	return r, nil
}

// UTXOs lists the unspent outputs of the addresses (encoded, with their
// network's prefix) from the node's UTXO index, ordered by outpoint. A
// node without --utxoindex answers with an error.
func (s *Session) UTXOs(ctx context.Context, addresses ...string) ([]twophase.UTXO, error) {
	const name = "get_utxos_by_addresses"
	r, err := sessionAsk[*appmessage.GetUTXOsByAddressesResponseMessage](ctx, s, name, appmessage.NewGetUTXOsByAddressesRequestMessage(addresses))
	if err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, &NodeError{Call: name, Message: r.Error.Message}
	}
	return utxoList(name, r.Entries)
}

// Submit hands a signed transaction to the node: nil when the node took
// it (or had it in its mempool already), a *RefusedError with the node's
// reason when it refused it.
func (s *Session) Submit(ctx context.Context, tx *externalapi.DomainTransaction) error {
	const name = "submit_transaction"
	id := txID(tx)
	r, err := sessionAsk[*appmessage.SubmitTransactionResponseMessage](ctx, s, name,
		appmessage.NewSubmitTransactionRequestMessage(appmessage.DomainTransactionToRPCTransaction(tx), false))
	if err != nil {
		return err
	}
	return submitted(name, id, r)
}
