// Package cleftest runs a signer speaking the clef protocol
// (account_version, account_list, account_signTransaction over JSON-RPC
// on HTTP) for tests: it holds keys the relay never sees, and can be
// switched to refuse every request or to hang until the caller gives up.
package cleftest

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"net/http/httptest"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// Mode is how the signer answers signing requests.
type Mode int

const (
	Sign   Mode = iota // sign what is asked
	Refuse             // answer every signing request with an error
	Hang               // never answer until the caller gives up
	Forge              // sign with a key that is not the account's
)

// Server is a running test signer.
type Server struct {
	http *httptest.Server
	rpc  *rpc.Server

	mu     sync.Mutex
	keys   map[common.Address]*ecdsa.PrivateKey
	mode   Mode
	signed map[common.Address]int
	asked  int
}

// Start serves a signer holding keys; its URL is the endpoint.
func Start(keys ...*ecdsa.PrivateKey) (*Server, error) {
	s := &Server{keys: map[common.Address]*ecdsa.PrivateKey{}, signed: map[common.Address]int{}, rpc: rpc.NewServer()}
	for _, k := range keys {
		s.keys[crypto.PubkeyToAddress(k.PublicKey)] = k
	}
	if err := s.rpc.RegisterName("account", &accountAPI{s: s}); err != nil {
		return nil, err
	}
	s.http = httptest.NewServer(s.rpc)
	return s, nil
}

// URL is the signer's JSON-RPC endpoint.
func (s *Server) URL() string { return s.http.URL }

// Close stops the signer.
func (s *Server) Close() {
	s.http.CloseClientConnections()
	s.http.Close()
	s.rpc.Stop()
}

// SetMode switches how the signer answers from now on.
func (s *Server) SetMode(m Mode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mode = m
}

// Signed is how many transactions the signer signed with addr's key.
func (s *Server) Signed(addr common.Address) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.signed[addr]
}

// Asked is how many signing requests reached the signer, answered or not.
func (s *Server) Asked() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked
}

// ErrRefused is the refusing signer's answer.
var ErrRefused = errors.New("request denied by the test signer")

// accountAPI is the account_ namespace.
type accountAPI struct{ s *Server }

// SignTransactionResult is clef's answer to account_signTransaction.
type SignTransactionResult struct {
	Raw hexutil.Bytes      `json:"raw"`
	Tx  *types.Transaction `json:"tx"`
}

func (a *accountAPI) Version() string { return "6.0.0" }

func (a *accountAPI) List() []common.Address {
	a.s.mu.Lock()
	defer a.s.mu.Unlock()
	out := make([]common.Address, 0, len(a.s.keys))
	for addr := range a.s.keys {
		out = append(out, addr)
	}
	return out
}

func (a *accountAPI) SignTransaction(ctx context.Context, args apitypes.SendTxArgs) (*SignTransactionResult, error) {
	a.s.mu.Lock()
	a.s.asked++
	mode, key := a.s.mode, a.s.keys[args.From.Address()]
	a.s.mu.Unlock()
	var err error
	switch mode {
	case Refuse:
		return nil, ErrRefused
	case Hang:
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if key == nil {
		return nil, errors.New("unknown account " + args.From.Address().Hex())
	}
	if mode == Forge {
		if key, err = crypto.GenerateKey(); err != nil {
			return nil, err
		}
	}
	tx, err := args.ToTransaction()
	if err != nil {
		return nil, err
	}
	chainID := (*big.Int)(args.ChainID)
	if chainID == nil {
		return nil, errors.New("no chain id")
	}
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(chainID), key)
	if err != nil {
		return nil, err
	}
	raw, err := signed.MarshalBinary()
	if err != nil {
		return nil, err
	}
	if mode == Sign {
		a.s.mu.Lock()
		a.s.signed[args.From.Address()]++
		a.s.mu.Unlock()
	}
	return &SignTransactionResult{Raw: raw, Tx: signed}, nil
}
