package projections

import (
	"context"
	"fmt"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// ClaimFold is the claims topic folded in memory, claim by claim, for the
// partitions a claim executor owns. It is not a [Projection] run by a
// [Runner]: a claim worker (`relay --role claims`) has no store of its
// own and must not run a second runner on a shared one, and a claim must
// be driven from a view that includes every record up to the one being
// handled, which [ClaimFold.Claim] gives by reading the partition to its
// end first.
//
// Unlike a Projection it folds every record, duplicates included: the
// last outcome for a transaction closes its intent, and an intent
// appended twice stays open until an outcome closes each.
type ClaimFold struct {
	Log topics.Log

	dec   *topics.Decoder
	parts map[int32]*claimPartition
}

type claimPartition struct {
	next   int64
	claims map[string]*ClaimState
}

// ClaimState is one claim as folded: its first request, its intents that
// have no outcome yet, and its last outcome other than Replaced.
// The executor driving the claim records what it drove on it.
type ClaimState struct {
	Request *domain.ClaimRequested
	Open    []domain.TxIntent
	Outcome *domain.TxOutcome
	// Settled is not folded from the log: the executor holding this fold
	// sets it once it appended the withdrawal's verdict, so the outcome
	// records it reads back after do not append the verdict again. A new
	// fold (a restart, a rebalance) starts without it.
	Settled bool
}

// Final reports whether a claim needs no more sends: its last outcome
// decides it (domain.TxStatus.Final). An abandoned or out-of-gas claim is
// the relayer's failure, not the withdrawal's, and is sent again.
func (c *ClaimState) Final() bool {
	return c.Outcome != nil && c.Outcome.Status.Final()
}

// claimReadBatch is how many records one read of the claims topic takes.
const claimReadBatch = 1000

// Claim folds claims partition p up to its end and returns the claim
// with aggregate id, nil when the partition has no record of it.
func (f *ClaimFold) Claim(ctx context.Context, p int32, id string) (*ClaimState, error) {
	if f.dec == nil {
		f.dec = topics.NewDecoder(topics.Limits{})
		f.parts = map[int32]*claimPartition{}
	}
	part := f.parts[p]
	if part == nil {
		part = &claimPartition{claims: map[string]*ClaimState{}}
		f.parts[p] = part
	}
	for {
		recs, err := f.Log.Read(ctx, topics.TopicClaims, p, part.next, claimReadBatch)
		if err != nil {
			return nil, fmt.Errorf("claims fold partition %d at %d: %w", p, part.next, err)
		}
		if len(recs) == 0 {
			return part.claims[id], nil
		}
		for _, r := range recs {
			part.next = r.Offset + 1
			var env topics.Envelope
			if err := f.dec.Decode(r.Value, &env); err != nil {
				continue // on the log for audit; nothing to fold
			}
			part.apply(&env)
		}
	}
}

// apply folds one claims envelope; a payload that does not decode
// changes nothing.
func (part *claimPartition) apply(env *topics.Envelope) {
	st := part.claims[env.AggregateID]
	if st == nil {
		st = &ClaimState{}
		part.claims[env.AggregateID] = st
	}
	switch env.Type {
	case domain.TypeClaimRequested:
		var req domain.ClaimRequested
		if err := topics.DecodePayload(env.Payload, &req); err == nil && st.Request == nil {
			st.Request = &req
		}
	case domain.TypeClaimIntent:
		var in domain.TxIntent
		if err := topics.DecodePayload(env.Payload, &in); err == nil {
			st.Open = append(st.Open, in)
		}
	case domain.TypeClaimOutcome:
		var out domain.TxOutcome
		if err := topics.DecodePayload(env.Payload, &out); err != nil {
			return
		}
		for i, in := range st.Open {
			if in.TxHash == out.TxHash {
				st.Open = append(st.Open[:i], st.Open[i+1:]...)
				break
			}
		}
		if out.Status != domain.TxReplaced {
			st.Outcome = &out
		}
	}
}
