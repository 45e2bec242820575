package twophase

import (
	"slices"
	"strings"
	"time"
)

// peerState is what a signer keeps in memory of each member: the replay
// window of its envelopes, its rate budget, and when it was last heard.
type peerState struct {
	session uint64
	maxSeq  uint64
	window  uint64 // bit i: seq maxSeq-i was seen

	tokens     float64
	refilledAt time.Time

	syncTokens     float64 // targeted syncs its proposals may still trigger
	syncRefilledAt time.Time

	proofTokens     float64 // source proofs its proposals may still ask for
	proofRefilledAt time.Time

	LastContact time.Time
}

const replayWindow = 64

// fresh reports whether (session, seq) was not seen before, and records
// it. Envelopes of an older session, or more than replayWindow behind
// the highest sequence seen, count as replays.
func (p *peerState) fresh(session, seq uint64) bool {
	switch {
	case session < p.session:
		return false
	case session > p.session || (p.window == 0 && p.maxSeq == 0):
		p.session, p.maxSeq, p.window = session, seq, 1
		return true
	case seq > p.maxSeq:
		if shift := seq - p.maxSeq; shift >= replayWindow {
			p.window = 1
		} else {
			p.window = p.window<<shift | 1
		}
		p.maxSeq = seq
		return true
	}
	d := p.maxSeq - seq
	if d >= replayWindow || p.window&(1<<d) != 0 {
		return false
	}
	p.window |= 1 << d
	return true
}

// allow takes one token from a bucket of burst tokens refilled at rate
// per second.
func allow(tokens *float64, refilled *time.Time, now time.Time, rate, burst float64) bool {
	if refilled.IsZero() {
		*tokens, *refilled = burst, now
	} else if d := now.Sub(*refilled); d > 0 {
		*tokens = min(burst, *tokens+d.Seconds()*rate)
		*refilled = now
	}
	if *tokens < 1 {
		return false
	}
	*tokens--
	return true
}

func (s *State) peer(id PeerID) *peerState {
	p, ok := s.peers[id]
	if !ok {
		p = &peerState{}
		s.peers[id] = p
	}
	return p
}

// PeerStatus is what `signer status` shows of a member.
type PeerStatus struct {
	ID          PeerID
	Session     uint64
	LastContact time.Time
}

// Peers lists the other members and when they were last heard.
func (s *State) Peers() []PeerStatus {
	var out []PeerStatus
	for _, id := range s.members {
		if id == s.cfg.Self {
			continue
		}
		p := s.peer(id)
		out = append(out, PeerStatus{ID: id, Session: p.session, LastContact: p.LastContact})
	}
	return out
}

// rejectKey and rejectWindow summarise refused envelopes: the first of a
// kind is recorded at once, the rest of its minute as a count. The
// sender is the member the envelope came from (the authenticated link
// when the transport names one), never a name the bytes merely claim, so
// there are at most (members+1) x reasons windows.
type rejectKey struct {
	sender PeerID
	reason Reason
}

type rejectWindow struct {
	since      time.Time
	suppressed int
	kind       string
	detail     string
}

const rejectSummaryEvery = time.Minute

// maxRejectDetail bounds the detail a refusal record keeps: it may quote
// what the peer sent.
const maxRejectDetail = 256

// boundedDetail is err's text cut to maxRejectDetail bytes.
func boundedDetail(err error) string {
	detail := err.Error()
	if len(detail) > maxRejectDetail {
		detail = strings.ToValidUTF8(detail[:maxRejectDetail], "") + "…"
	}
	return detail
}

// rejectMessage records a refused envelope: a fact for the first of its
// sender and reason in a minute, a count for the others (flushed by Tick).
func (s *State) rejectMessage(sender PeerID, kind string, err error, now time.Time) {
	s.rejectMany(sender, kind, err, 1, now)
}

// NoteRefused counts n envelopes that the transport refused from member
// link before any check (over the link's budget), as rejectMessage would
// have; they are recorded with the next step's facts.
func (s *State) NoteRefused(link PeerID, reason Reason, detail string, n int, now time.Time) {
	if n > 0 {
		s.rejectMany(link, "envelope", reject(reason, "%s", detail), n, now)
	}
}

func (s *State) rejectMany(sender PeerID, kind string, err error, n int, now time.Time) {
	reason := ReasonOf(err)
	if reason == "" {
		reason = ReasonMalformed
	}
	s.observe(MetricMessagesRejected, string(reason), float64(n))
	s.recordRefusal(sender, kind, err, n, now)
}

// recordRefusal counts n refusals in their window, recording the first of
// a minute at once; the caller counts them in its own metric.
func (s *State) recordRefusal(sender PeerID, kind string, err error, n int, now time.Time) {
	reason := ReasonOf(err)
	if reason == "" {
		reason = ReasonMalformed
	}
	if !slices.Contains(s.members, sender) {
		sender = "" // not a member: one window for every such name
	}
	k := rejectKey{sender: sender, reason: reason}
	w, ok := s.rejects[k]
	if ok && now.Sub(w.since) < rejectSummaryEvery {
		w.suppressed += n
		return
	}
	if ok && w.suppressed > 0 {
		s.emit(MessageRejected{Sender: sender, Kind: w.kind, Reason: reason, Detail: w.detail, Count: w.suppressed, Summary: true,
			AtNs: ns(w.since.Add(rejectSummaryEvery))})
	}
	detail := boundedDetail(err)
	s.rejects[k] = &rejectWindow{since: now, kind: kind, detail: detail, suppressed: n - 1}
	s.emit(MessageRejected{Sender: sender, Kind: kind, Reason: reason, Detail: detail, Count: 1, AtNs: ns(now)})
}

// flushRejects records the counts of windows that ended.
func (s *State) flushRejects(now time.Time) {
	for _, k := range sortedRejectKeys(s.rejects) {
		w := s.rejects[k]
		if now.Sub(w.since) < rejectSummaryEvery {
			continue
		}
		if w.suppressed > 0 {
			s.emit(MessageRejected{Sender: k.sender, Kind: w.kind, Reason: k.reason, Detail: w.detail,
				Count: w.suppressed, Summary: true, AtNs: ns(w.since.Add(rejectSummaryEvery))})
		}
		delete(s.rejects, k)
	}
}

func sortedRejectKeys(m map[rejectKey]*rejectWindow) []rejectKey {
	out := make([]rejectKey, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b rejectKey) int {
		if c := strings.Compare(string(a.sender), string(b.sender)); c != 0 {
			return c
		}
		return strings.Compare(string(a.reason), string(b.reason))
	})
	return out
}
