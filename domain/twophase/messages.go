package twophase

// NoVote says that Voter casts no vote in a round, and why (no deep
// outputs, ambiguous earlier rounds). Knowing who did not vote is what
// lets the others rule a hash out (see [Knowledge]).
type NoVote struct {
	EventID     Hash
	Epoch       uint32
	Round       uint32
	Voter       PeerID
	Reason      Reason
	TimestampNs int64
}

const maxReasonBytes = 64

func (n NoVote) Encode() []byte {
	var w writer
	w.hash(n.EventID)
	w.u32(n.Epoch)
	w.u32(n.Round)
	w.str(string(n.Voter))
	w.str(string(n.Reason))
	w.timeNs(n.TimestampNs)
	return w.out()
}

func DecodeNoVote(b []byte) (NoVote, error) {
	r := reader{b: b}
	n := NoVote{EventID: r.hash("event"), Epoch: r.u32("epoch"), Round: r.u32("round"), Voter: PeerID(r.str(MaxPeerIDBytes, "voter")),
		Reason: Reason(r.str(maxReasonBytes, "reason")), TimestampNs: r.timeNs("timestamp")}
	return n, malformed(r.end("no-vote"))
}

// Commit announces that the sender committed TemplateHash for the event
// in Round. Evidence holds the signed proposal envelopes of the quorum, so
// a receiver can check the commit instead of believing it; Signature is
// the sender's payout signature of the template, once it signed.
type Commit struct {
	EventID      Hash
	Epoch        uint32
	Round        uint32
	TemplateHash Hash
	Evidence     [][]byte
	Signature    []byte
}

// MaxSignatureBytes bounds a payout signature (all inputs' signatures).
const MaxSignatureBytes = 64 << 10

func (c Commit) Encode() []byte {
	var w writer
	w.hash(c.EventID)
	w.u32(c.Epoch)
	w.u32(c.Round)
	w.hash(c.TemplateHash)
	w.count(len(c.Evidence))
	for _, e := range c.Evidence {
		w.bytes(e)
	}
	w.bytes(c.Signature)
	return w.out()
}

func DecodeCommit(b []byte) (Commit, error) {
	r := reader{b: b}
	c := Commit{EventID: r.hash("event"), Epoch: r.u32("epoch"), Round: r.u32("round"), TemplateHash: r.hash("template hash")}
	c.Evidence = r.envelopes(MaxMembers, "evidence")
	c.Signature = r.bytes(MaxSignatureBytes, "signature")
	return c, malformed(r.end("commit"))
}

// SyncWant asks for one event's state: the asker's epoch and round, and
// whose votes of each round it already holds (the answer leaves those
// out).
type SyncWant struct {
	EventID Hash
	Epoch   uint32
	Round   uint32
	Have    []RoundVoters
}

// RoundVoters lists the members whose vote of Round one holds.
type RoundVoters struct {
	Round  uint32
	Voters []PeerID
}

// maxRoundsOnWire bounds the rounds one message speaks of.
const maxRoundsOnWire = 64

// SyncRequest is the pull side of anti-entropy.
type SyncRequest struct{ Wants []SyncWant }

// MaxSyncWants bounds a request's events (MAX_SYNC_EVENTS_PER_TICK can be
// configured lower).
const MaxSyncWants = 256

func (s SyncRequest) Encode() []byte {
	var w writer
	w.count(len(s.Wants))
	for _, x := range s.Wants {
		w.hash(x.EventID)
		w.u32(x.Epoch)
		w.u32(x.Round)
		w.count(len(x.Have))
		for _, h := range x.Have {
			w.u32(h.Round)
			w.count(len(h.Voters))
			for _, p := range h.Voters {
				w.str(string(p))
			}
		}
	}
	return w.out()
}

func DecodeSyncRequest(b []byte) (SyncRequest, error) {
	r := reader{b: b}
	n := r.count(MaxSyncWants, "wants")
	var s SyncRequest
	for i := 0; i < n && r.err == nil; i++ {
		x := SyncWant{EventID: r.hash("event"), Epoch: r.u32("epoch"), Round: r.u32("round")}
		m := r.count(maxRoundsOnWire, "have")
		for j := 0; j < m && r.err == nil; j++ {
			h := RoundVoters{Round: r.u32("have round")}
			k := r.count(MaxMembers, "have voters")
			for l := 0; l < k && r.err == nil; l++ {
				h.Voters = append(h.Voters, PeerID(r.str(MaxPeerIDBytes, "have voter")))
			}
			x.Have = append(x.Have, h)
		}
		s.Wants = append(s.Wants, x)
	}
	return s, malformed(r.end("sync request"))
}

// SyncState is one event as the responder knows it: its phase and round,
// the signed votes the asker lacks (the responder's own of every round,
// others' of the asker's round), the commit evidence and the responder's
// signature once committed, the payout once completed.
type SyncState struct {
	EventID     Hash
	Epoch       uint32
	Phase       Phase
	Round       uint32
	CommitRound uint32
	Canonical   Hash
	Votes       [][]byte
	Evidence    [][]byte
	Signatures  []MemberSignature
	PayoutTx    Hash
}

// MemberSignature is one member's payout signature of a template.
type MemberSignature struct {
	Signer    PeerID
	Signature []byte
}

// SyncResponse answers a [SyncRequest].
type SyncResponse struct{ States []SyncState }

// maxVotesPerState bounds the votes of one state: every member in every
// round an event can have.
const maxVotesPerState = MaxMembers * 16

func (s SyncResponse) Encode() []byte {
	var w writer
	w.count(len(s.States))
	for _, x := range s.States {
		w.hash(x.EventID)
		w.u32(x.Epoch)
		w.u8(uint8(x.Phase))
		w.u32(x.Round)
		w.u32(x.CommitRound)
		w.hash(x.Canonical)
		w.envelopes(x.Votes)
		w.envelopes(x.Evidence)
		w.count(len(x.Signatures))
		for _, m := range x.Signatures {
			w.str(string(m.Signer))
			w.bytes(m.Signature)
		}
		w.hash(x.PayoutTx)
	}
	return w.out()
}

func DecodeSyncResponse(b []byte) (SyncResponse, error) {
	r := reader{b: b}
	n := r.count(MaxSyncWants, "states")
	var s SyncResponse
	for i := 0; i < n && r.err == nil; i++ {
		x := SyncState{EventID: r.hash("event"), Epoch: r.u32("epoch"), Phase: r.phase(), Round: r.u32("round"),
			CommitRound: r.u32("commit round"), Canonical: r.hash("canonical")}
		x.Votes = r.envelopes(maxVotesPerState, "votes")
		x.Evidence = r.envelopes(MaxMembers, "evidence")
		k := r.count(MaxMembers, "signatures")
		for j := 0; j < k && r.err == nil; j++ {
			x.Signatures = append(x.Signatures, MemberSignature{Signer: PeerID(r.str(MaxPeerIDBytes, "signer")),
				Signature: r.bytes(MaxSignatureBytes, "signature")})
		}
		x.PayoutTx = r.hash("payout tx")
		s.States = append(s.States, x)
	}
	return s, malformed(r.end("sync response"))
}

func (w *writer) envelopes(es [][]byte) {
	w.count(len(es))
	for _, e := range es {
		w.bytes(e)
	}
}

func (r *reader) envelopes(max int, what string) [][]byte {
	n := r.count(max, what)
	var out [][]byte
	for i := 0; i < n && r.err == nil; i++ {
		out = append(out, r.bytes(MaxEnvelopeBytes, what))
	}
	return out
}

func malformed(err error) error {
	if err == nil {
		return nil
	}
	return &ValidationError{Reason: ReasonMalformed, Detail: err.Error()}
}

func (r *reader) phase() Phase {
	p := Phase(r.u8("phase"))
	if p > PhaseRefused && r.err == nil {
		r.fail("phase %d", p)
	}
	return p
}
