package simledger

import (
	"crypto/sha256"
	"math/big"
	"strconv"
	"strings"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// RefusalFor is the refusal certificate of a simulated event: a burn
// stream's event's own ([domain.RefusalFor]); for the simulator's other
// streams, a token and burner derived from the stream and the
// destination, and the event id as the burn's transaction when its
// source names none, so that every event has its own refund key.
func RefusalFor(groupID string, ev twophase.SigningEvent, origin string, reason twophase.Reason) domain.RefusalCertificate {
	if c, err := domain.RefusalFor(groupID, ev, origin, reason); err == nil {
		return c
	}
	var token, burner domain.Address
	t := sha256.Sum256([]byte("simledger/token/" + ev.Stream))
	b := sha256.Sum256([]byte("simledger/burner/" + ev.Destination + "/" + origin))
	copy(token[:], t[:])
	copy(burner[:], b[:])
	chain, _ := strconv.ParseUint(strings.TrimPrefix(ev.Source.Chain, "evm:"), 10, 64)
	tx := ev.Source.TxHash
	if tx == (twophase.Hash{}) {
		tx = ev.ID()
	}
	return domain.RefusalCertificate{GroupID: groupID, Reason: string(reason), Token: token, Burner: burner,
		Burn:   domain.LogRef{ChainID: chain, TxHash: domain.Hash32(tx), LogIndex: ev.Source.LogIndex},
		Amount: weiOf(ev.Amount)}
}

// RefusalSubject is the simulated group's [twophase.RefusalSubject].
func RefusalSubject(groupID string) twophase.RefusalSubject {
	return func(ev twophase.SigningEvent, origin string, reason twophase.Reason) ([]byte, bool) {
		return RefusalFor(groupID, ev, origin, reason).SigningBytes(), true
	}
}

func weiOf(sompi uint64) domain.Amount {
	a, _ := domain.NewAmount(new(big.Int).Mul(new(big.Int).SetUint64(sompi), big.NewInt(domain.WeiPerSompi)))
	return a
}
