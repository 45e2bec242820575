package signingsource

import (
	"errors"
	"fmt"
	"sync"

	"github.com/bridgelog/bridgelog/domain"
)

// errUnnumbered: a burn whose sender nonce cannot be known yet, because
// a lower burn id of its contract is not numbered (not confirmed on the
// signer's node, nor proven). Each such error is an *unnumberedError.
var errUnnumbered = errors.New("a lower burn id is not numbered yet")

type unnumberedError struct{ id, missing uint64 }

func (e *unnumberedError) Error() string {
	return fmt.Sprintf("burn id %d waits for burn id %d, neither confirmed on this signer's node nor proven yet", e.id, e.missing)
}

func (e *unnumberedError) Is(target error) bool { return target == errUnnumbered }

// SenderNonces numbers each contract's burns toward Kaspa per sender, for
// a group whose streams are per sender ([domain.BurnSenderStream]). The
// contract numbers its burns in one sequence of ids; a burn's nonce in
// its sender's stream is how many of the sender's burns have an id up to
// its own. So a burn is numbered only once every lower id is: an id
// missing (a hole) holds back every later burn, whoever sent it, until it
// is confirmed, or proven when a peer proposes it or an operator submits
// it. Every signer numbers the same burns the same way, from the
// contract's first burn on. Safe for concurrent use.
type SenderNonces struct {
	mu        sync.Mutex
	contracts map[string]*senderCount // by contract stream
}

// senderCount is one contract's numbering so far.
type senderCount struct {
	next  uint64 // the lowest burn id not numbered
	count map[domain.Address]uint64
	byID  map[uint64]senderNonce
}

type senderNonce struct {
	sender domain.Address
	nonce  uint64
}

// NewSenderNonces starts numbering every contract from its first burn.
func NewSenderNonces() *SenderNonces { return &SenderNonces{contracts: map[string]*senderCount{}} }

func (s *SenderNonces) contract(b domain.WithdrawalToKaspaDetected) *senderCount {
	key := domain.BurnStream(b.Ref.ChainID, b.Contract)
	c := s.contracts[key]
	if c == nil {
		c = &senderCount{next: domain.FirstBurnID, count: map[domain.Address]uint64{}, byID: map[uint64]senderNonce{}}
		s.contracts[key] = c
	}
	return c
}

// nonceOf is b's nonce in its sender's stream, numbering b when record
// is set and b is the next burn id. It fails with errUnnumbered when a
// lower id is not numbered, and with another error when b's id was
// numbered as another sender's burn (a different burn under one id).
func (s *SenderNonces) nonceOf(b domain.WithdrawalToKaspaDetected, record bool) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.contract(b)
	switch id := b.OnChainID; {
	case id < c.next:
		n := c.byID[id]
		if n.sender != b.Withdrawer {
			return 0, fmt.Errorf("burn id %d was numbered as %s's, this one is %s's", id, n.sender.Hex(), b.Withdrawer.Hex())
		}
		return n.nonce, nil
	case id > c.next:
		return 0, &unnumberedError{id: id, missing: c.next}
	}
	nonce := c.count[b.Withdrawer] + 1
	if record {
		c.count[b.Withdrawer] = nonce
		c.byID[b.OnChainID] = senderNonce{sender: b.Withdrawer, nonce: nonce}
		c.next++
	}
	return nonce, nil
}

// Number returns b's nonce in its sender's stream, numbering b when it
// is its contract's next burn id.
func (s *SenderNonces) Number(b domain.WithdrawalToKaspaDetected) (uint64, error) {
	return s.nonceOf(b, true)
}

// peek is Number without numbering b: for a burn not yet proven.
func (s *SenderNonces) peek(b domain.WithdrawalToKaspaDetected) (uint64, error) {
	return s.nonceOf(b, false)
}
