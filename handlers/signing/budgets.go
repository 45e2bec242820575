package signing

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// What one member's link may cost this signer before the protocol sees
// its envelopes: a token bucket per link, taken before any signature
// check, and source-proof look-ups that are bounded in number, in flight
// and in memory.

// Proof look-ups: at most maxProofsInFlight at once (a look-up past them
// is skipped: the proposer sends its proposal again, or this signer's own
// source confirms the event), and at most maxProvedRemembered events
// remembered, each for ProveEvery.
const (
	maxProofsInFlight   = 4
	maxProvedRemembered = 4096
)

// startProof reports whether a proof of event id may start now, and takes
// its slot: not if id was tried within ProveEvery, nor when every slot is
// busy or the memory of tries is full of recent ones.
func (s *Signer) startProof(id twophase.Hash, now time.Time) bool {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	if last, ok := s.proved[id]; ok && now.Sub(last) < s.cfg.ProveEvery {
		return false
	}
	if len(s.proved) >= maxProvedRemembered {
		for k, at := range s.proved {
			if now.Sub(at) >= s.cfg.ProveEvery {
				delete(s.proved, k)
			}
		}
		if len(s.proved) >= maxProvedRemembered {
			return false
		}
	}
	select {
	case s.proving <- struct{}{}:
	default:
		return false
	}
	s.proved[id] = now
	return true
}

// A link's bytes: what it may send a second, and at once (two envelopes
// of the largest size, so an honest sync answer always fits).
const (
	linkBytesPerSecond = 4 << 20
	linkBytesBurst     = 2 * twophase.MaxEnvelopeBytes
)

// linkBudgets are the token buckets of the members' links: envelopes and
// bytes.
type linkBudgets struct {
	mu      sync.Mutex
	rate    float64
	burst   float64
	buckets map[twophase.PeerID]*linkBucket
}

type linkBucket struct {
	tokens  float64
	bytes   float64
	at      time.Time
	refused int // since the last tick
}

// linkRefusals are a link's envelopes refused over its budget.
type linkRefusals struct {
	link   twophase.PeerID
	n      int
	detail string
}

func (b *linkBudgets) init(p twophase.Params) {
	b.rate, b.burst = float64(p.MessagesPerSecondPerPeer), float64(p.MessageBurstPerPeer)
	b.buckets = map[twophase.PeerID]*linkBucket{}
}

// allow takes a token and size bytes of link's buckets, or counts a
// refusal.
func (b *linkBudgets) allow(link twophase.PeerID, size int, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := b.buckets[link]
	if k == nil {
		k = &linkBucket{tokens: b.burst, bytes: linkBytesBurst, at: now}
		b.buckets[link] = k
	} else if d := now.Sub(k.at); d > 0 {
		k.tokens = min(b.burst, k.tokens+d.Seconds()*b.rate)
		k.bytes = min(linkBytesBurst, k.bytes+d.Seconds()*linkBytesPerSecond)
		k.at = now
	}
	if k.tokens < 1 || k.bytes < float64(size) {
		k.refused++
		return false
	}
	k.tokens--
	k.bytes -= float64(size)
	return true
}

// takeRefused returns and resets the refusals counted since the last
// call, in link order.
func (b *linkBudgets) takeRefused() []linkRefusals {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []linkRefusals
	for id, k := range b.buckets {
		if k.refused > 0 {
			out = append(out, linkRefusals{link: id, n: k.refused,
				detail: fmt.Sprintf("link over %v messages/s (burst %v) or %d bytes/s, refused before any check", b.rate, b.burst, linkBytesPerSecond)})
			k.refused = 0
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].link < out[j].link })
	return out
}

// DeliverFrom handles an envelope that came on the authenticated link of
// member link (the mesh names it): within the link's budget it is
// checked, outside the lock, and handed to the protocol, which counts
// every refusal of it against link; past the budget it is only counted,
// and recorded with the next tick.
func (s *Signer) DeliverFrom(ctx context.Context, link twophase.PeerID, raw []byte) error {
	if !s.links.allow(link, len(raw), s.cfg.Clock()) {
		return nil
	}
	env, err := s.opener.Open(raw)
	return s.do(ctx, func(en twophase.Env) twophase.Step { return s.state.DeliverFrom(link, raw, env, err, en) })
}
