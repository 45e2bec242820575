package simulate

import (
	"crypto/ed25519"
	"fmt"

	"github.com/bridgelog/bridgelog/adapters/simledger"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// deniedDestination is the simulated policy's denied destination.
const deniedDestination = "sim:denied"

// unpayable makes event i's burn one the group refuses, in one of four
// ways: an address of another network, the group's own, the denied
// destination, an amount over the per-event limit.
func (w *world) unpayable(ev *twophase.SigningEvent, i int) {
	switch w.rng.IntN(4) {
	case 0:
		ev.Destination = fmt.Sprintf("kaspa:user-%d", i)
	case 1:
		ev.Destination = simledger.GroupAddress("sim")
	case 2:
		ev.Destination = deniedDestination
	default:
		ev.Amount = simPolicy.MaxAmount + 1 + uint64(i)
	}
}

// refused: event i is Refused at every honest signer that is up.
func (w *world) refused(i int) bool {
	up := 0
	for _, n := range w.honestNodes() {
		if !n.up {
			continue
		}
		up++
		if e, ok := n.signer.Event(w.events[i].ID()); !ok || e.Phase != twophase.PhaseRefused {
			return false
		}
	}
	return up > 0
}

// refunds counts the refused events of which some honest signer holds a
// complete certificate that verifies against the group's keys and quorum.
func (w *world) refunds() int {
	keys := map[string]ed25519.PublicKey{}
	for _, m := range w.group.Members {
		keys[string(m.ID)] = m.IdentityKey
	}
	group := w.group.ID().Hex()
	certified := map[twophase.Hash]bool{}
	for _, n := range w.honestNodes() {
		for _, r := range n.signer.Refusals() {
			if r.Complete && domain.VerifyRefusal(r.Certificate, group, keys, w.group.Quorum) == nil {
				certified[r.EventID] = true
			}
		}
	}
	return len(certified)
}

// stalledStreams counts the streams with an event pending at some honest
// signer that is up.
func (w *world) stalledStreams() int {
	stalled := map[string]bool{}
	for _, n := range w.honestNodes() {
		if !n.up {
			continue
		}
		for _, st := range n.signer.Status().Streams {
			if st.Pending > 0 {
				stalled[st.Stream] = true
			}
		}
	}
	return len(stalled)
}
