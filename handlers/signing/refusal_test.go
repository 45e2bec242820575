package signing_test

import (
	"context"
	"crypto/ed25519"
	"math/big"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// A burn the group refuses, handed over with its burner as the source
// does, gets a complete certificate at every signer, on the wall clock
// and the bus: it names the burn's log, token, burner and amount in wei,
// and verifies against the group's keys; the stream's next burn is paid.
func TestSignersCertifyARefusedBurn(t *testing.T) {
	r := newRig(t, 3, 2*time.Millisecond)
	token, burner := domain.Address{0xaa}, domain.Address{0xbb}
	stream := domain.BurnStream(1337, token)
	bad := twophase.SigningEvent{Stream: stream, Nonce: twophase.FirstNonce, Destination: "kaspa:notasimaddress", Amount: 70_000,
		Source: twophase.SourceRef{Chain: domain.EVMChain(1337), TxHash: twophase.Hash{0x11}, LogIndex: 4, Block: 10}}
	next := twophase.SigningEvent{Stream: stream, Nonce: twophase.FirstNonce + 1, Destination: "sim:carol", Amount: 80_000,
		Source: twophase.SourceRef{Chain: domain.EVMChain(1337), TxHash: twophase.Hash{0x12}, Block: 11}}
	for _, id := range r.ids {
		for _, ev := range []twophase.SigningEvent{bad, next} {
			if err := r.node(id).RequestFrom(context.Background(), ev, "source", burner.Hex()); err != nil {
				t.Fatal(err)
			}
		}
	}
	r.waitCompleted(next, 20*time.Second)
	keys := map[string]ed25519.PublicKey{}
	for _, m := range r.group.Members {
		keys[string(m.ID)] = m.IdentityKey
	}
	wei, _ := domain.NewAmount(new(big.Int).Mul(big.NewInt(70_000), big.NewInt(domain.WeiPerSompi)))
	for _, id := range r.ids {
		deadline := time.Now().Add(10 * time.Second)
		for {
			rs := r.node(id).Refusals()
			if len(rs) == 1 && rs[0].Complete {
				c := rs[0].Certificate
				if c.Burner != burner || c.Token != token || c.Amount.Cmp(wei) != 0 || c.Reason != string(twophase.RefusedNotAnAddress) ||
					c.Burn != (domain.LogRef{ChainID: 1337, TxHash: domain.Hash32{0x11}, LogIndex: 4}) {
					t.Fatalf("%s: certificate %+v", id, c)
				}
				if err := domain.VerifyRefusal(c, r.group.ID().Hex(), keys, r.group.Quorum); err != nil {
					t.Fatalf("%s: %v", id, err)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: refusals %+v", id, rs)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
