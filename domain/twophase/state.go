package twophase

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"slices"
	"time"
)

// PayoutSigner signs a template with this signer's payout key.
type PayoutSigner interface {
	SignPayout(t Template) ([]byte, error)
}

// PayoutScheme checks members' payout signatures and assembles the signed
// payout; both are the ledger's.
type PayoutScheme interface {
	// VerifySignature checks signer's signature of t.
	VerifySignature(t Template, signer Member, sig []byte) error
	// Assemble builds the signed transaction from at least a quorum of
	// signatures (in the group's member order).
	Assemble(t Template, group Group, sigs []MemberSignature) ([]byte, error)
}

// Config is a signer's fixed configuration.
type Config struct {
	Self     PeerID
	Group    Group
	Params   Params
	Policy   Policy
	Rules    LedgerRules
	Scheme   PayoutScheme
	Payout   PayoutSigner
	Identity ed25519.PrivateKey
	// Verify verifies envelope signatures (nil: ed25519.Verify).
	Verify VerifyFunc
	// Refusal gives the bytes members sign to refuse an event (nil: a
	// Refused event gets no certificate).
	Refusal RefusalSubject
}

// Env is what one decision may consult besides the state: the time, the
// ledger view and a payout's status. View is called at most when needed
// and its answer should be fetched at most once per decision.
type Env struct {
	Now    time.Time
	View   func() (LedgerView, error)
	Payout func(txID Hash) (PayoutStatus, error)
	// Input says what the node knows of an outpoint (nil: nothing, and a
	// signed payout is then never voided, only sent again).
	Input func(op Outpoint) (InputStatus, error)
}

// InputStatus is what the ledger says of one outpoint: unspent, spent by
// an accepted transaction (at a DAA score), or gone (not in the UTXO set
// and spent by no transaction the node knows: a reorg took away the block
// that created it) since a DAA score; VirtualDAAScore is the node's now.
type InputStatus struct {
	Unspent         bool
	SpentBy         Hash
	SpentDAA        uint64
	GoneSince       uint64
	VirtualDAAScore uint64
}

// PayoutStatus is what the ledger says of a payout transaction.
type PayoutStatus struct {
	Accepted bool
	// DAAScore of the block that accepted it, and the virtual DAA score
	// now: their difference is its depth.
	DAAScore        uint64
	VirtualDAAScore uint64
}

// Outbound is a sealed envelope to send: to one member, or to all others
// when To is empty.
type Outbound struct {
	To   PeerID
	Kind Kind
	Raw  []byte
}

// Submission asks the caller to submit a signed payout, after appending
// the step's facts, and to report the ledger's answer with
// [State.SubmitResult].
type Submission struct {
	EventID Hash
	TxID    Hash
	Attempt int
	Tx      []byte
}

// Step is what one decision produced: facts already applied to the state,
// to append durably first; then the envelopes to send and the payouts to
// submit; and what happened that is counted but not recorded.
type Step struct {
	Facts   []Fact
	Out     []Outbound
	Submit  []Submission
	Metrics []Observation
	// Unconfirmed are events peers proposed that this signer's own source
	// has not confirmed: the caller may prove them against its own chain
	// node and hand them over with Request (the source proof).
	Unconfirmed []SigningEvent
}

// Observation is a metric sample a decision reports (see metrics.go).
type Observation struct {
	Name  string
	Label string // the one label of the metric, when it has one
	Value float64
}

// ballot is a vote the signer holds: the member's signed envelope and
// what it says.
type ballot struct {
	hash     Hash
	none     bool
	reason   Reason
	envelope []byte
	// Profile B: the lock message the proposal signs, its digest and the
	// voter's lock signature.
	lockMsg    *LockMsg
	lockDigest Hash
	lockSig    []byte
}

// knownTemplate is a template some vote proposed, decoded once.
type knownTemplate struct {
	encoded  []byte
	template Template
	txID     Hash
	created  []uint64 // each input's DAA score as its proposer saw it
	valid    bool     // passed this signer's validation
}

// EventState is one signing event at this signer.
type EventState struct {
	ID    Hash
	Event SigningEvent
	Via   string
	// Origin is who made the request on the source (EventRequested.Origin).
	Origin string
	// requestedAt is when the signer learnt of the event.
	requestedAt time.Time

	Phase      Phase
	Epoch      uint32
	Round      uint32
	PhaseSince time.Time
	RetryCount uint32
	RetryAt    time.Time
	// FirstRoundAt starts the clock of [Params.MaxTimeToAbandon].
	FirstRoundAt time.Time

	votes map[uint32]map[PeerID]*ballot // of the current epoch
	// precommits are Profile B's second votes, by round, of the current
	// epoch; this signer's own say what it is locked on.
	precommits map[uint32]map[PeerID]*ballot
	// ahead holds, in Profile B, the votes of round Round+1 that members
	// sent while this signer was still in Round (see joinNextRound).
	ahead map[PeerID]voteIn
	// votesSeen counts votes stored; noQuorumAt is its value when Profile
	// B last found no lock quorum in any round (nothing to do until a
	// vote arrives).
	votesSeen, noQuorumAt int
	// stepSeen is votesSeen+1 when Profile B last looked for a polka and
	// for the end of the round (see progressEvent).
	stepSeen  int
	templates map[Hash]*knownTemplate

	Canonical   Hash
	CommitRound uint32
	// unusable is a committed hash that failed revalidation in this
	// round: not committed again before the next round.
	unusable   Hash
	Evidence   [][]byte // the quorum's envelopes; Profile B: the lock certificate, then a proposal of its template
	cert       *LockCert
	commitSent time.Time

	Signed *TemplateSigned
	// Voided are the templates this signer signed whose payout was proven
	// never to confirm (PayoutVoided): never signed again.
	Voided    []Hash
	sigs      map[PeerID][]byte // valid payout signatures of Canonical
	Submitted int               // submission attempts
	lastSub   time.Time
	PayoutTx  Hash
	DoneAt    time.Time

	syncAsked map[PeerID]time.Time // targeted syncs, for STATE_SYNC_COOLDOWN_MS
	// noted marks the vote slots whose refusal or equivocation is on the
	// log: each is recorded once (see budgets.go).
	noted map[votePlace]bool

	// Refusal is the verdict of a Refused event and the members'
	// signatures of its certificate.
	Refusal *RefusalState
}

// started reports whether the event left Unknown (its first round or commit).
func (e *EventState) started() bool { return e.Phase != PhaseUnknown }

// streamState orders one stream's events by nonce (section 1.5).
type streamState struct {
	next         uint64
	pending      map[uint64]Hash // known events by nonce, until the stream moves past them
	done         map[uint64]bool // completed nonces above next
	blockedSince time.Time       // when the stream last found its next nonce missing
}

// State is a signer's protocol state: the fold of its log plus what it
// keeps only in memory (replay windows, rate limits, cooldowns).
type State struct {
	cfg       Config
	validator Validator
	opener    *Opener
	members   []PeerID // sorted

	events map[Hash]*EventState
	// open holds the events that started and are not terminal: what the
	// timers, payout checks and anti-entropy look at. Events waiting for
	// their turn are not in it, however many there are.
	open map[Hash]*EventState
	// doneQueue lists completed events in the order they completed, for GC.
	doneQueue []Hash
	streams   map[string]*streamState
	session   uint64
	seq       uint64
	peers     map[PeerID]*peerState
	rejects   map[rejectKey]*rejectWindow
	// asked holds the sync requests this signer sent and not yet had
	// answered: member -> event -> when (see syncguard.go).
	asked   map[PeerID]map[Hash]time.Time
	tickN   uint64
	started bool

	activeEv *EventState // see active; recomputed when activeOK is false
	activeOK bool
	// actives is Profile B's active set (see actives), under activeOK too.
	activeSet  map[Hash]bool
	activeList []*EventState
	// recorded holds the keys of recordedOnce facts in the log.
	recorded map[string]bool
	// equivocators are the members this signer holds proof of two
	// different votes of (an Equivocation fact): Byzantine for sure.
	equivocators map[PeerID]bool
	// refusing holds the Refused events whose certificate has no quorum
	// yet: their signatures are sent again until it has.
	refusing map[Hash]*EventState

	step Step
}

// ErrConfig: a configuration the signer must not start with.
var ErrConfig = errors.New("invalid signer configuration")

// NewState validates cfg and returns an empty state; replay the log into
// it with [State.Apply], then call [State.Start].
func NewState(cfg Config) (*State, error) {
	cfg.Group = cfg.Group.Sorted()
	cfg.Params = cfg.Params.WithDefaults()
	if err := cfg.Group.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Params.Validate(); err != nil {
		return nil, err
	}
	if _, ok := cfg.Group.Member(cfg.Self); !ok {
		return nil, fmt.Errorf("%w: %q is not a member of the group", ErrConfig, cfg.Self)
	}
	if m, _ := cfg.Group.Member(cfg.Self); len(cfg.Identity) != ed25519.PrivateKeySize ||
		!m.IdentityKey.Equal(cfg.Identity.Public()) {
		return nil, fmt.Errorf("%w: the identity key does not match %s's key in the group", ErrConfig, cfg.Self)
	}
	if cfg.Rules == nil || cfg.Scheme == nil || cfg.Payout == nil {
		return nil, fmt.Errorf("%w: ledger rules, payout scheme and payout signer are required", ErrConfig)
	}
	s := &State{
		cfg:          cfg,
		validator:    Validator{Group: cfg.Group, Params: cfg.Params, Policy: cfg.Policy, Rules: cfg.Rules},
		opener:       NewOpener(cfg.Group, cfg.Verify),
		members:      cfg.Group.IDs(),
		events:       map[Hash]*EventState{},
		open:         map[Hash]*EventState{},
		streams:      map[string]*streamState{},
		peers:        map[PeerID]*peerState{},
		rejects:      map[rejectKey]*rejectWindow{},
		asked:        map[PeerID]map[Hash]time.Time{},
		recorded:     map[string]bool{},
		equivocators: map[PeerID]bool{},
		refusing:     map[Hash]*EventState{},
	}
	return s, nil
}

// Config returns the signer's configuration (with defaults filled in).
func (s *State) Config() Config { return s.cfg }

// Opener is the envelope checker of this signer's group.
func (s *State) Opener() *Opener { return s.opener }

// Session is the current session number.
func (s *State) Session() uint64 { return s.session }

// Event returns a copy of an event's state.
func (s *State) Event(id Hash) (EventState, bool) {
	e, ok := s.events[id]
	if !ok {
		return EventState{}, false
	}
	return *e, true
}

// Template returns the template with hash h that the signer knows for
// event id (received in a vote, or its own), as `signer status` and the
// devnet's summary read a committed payout's fee and mass.
func (e *EventState) Template(h Hash) (Template, bool) {
	kt := e.templates[h]
	if kt == nil {
		return Template{}, false
	}
	return kt.template, true
}

// Events lists the events held in memory in the order they are served.
func (s *State) Events() []*EventState { return sortEvents(s.events) }

// openEvents lists the started, non-terminal events in order.
func (s *State) openEvents() []*EventState { return sortEvents(s.open) }

func sortEvents(m map[Hash]*EventState) []*EventState {
	out := make([]*EventState, 0, len(m))
	for _, e := range m {
		out = append(out, e)
	}
	slices.SortFunc(out, compareEvents)
	return out
}

// compareEvents orders events as they are served: source order.
func compareEvents(a, b *EventState) int {
	switch {
	case a.Event.Before(b.Event):
		return -1
	case b.Event.Before(a.Event):
		return 1
	}
	return 0
}

// StreamStatus is one stream's ordering state.
type StreamStatus struct {
	Stream       string
	Next         uint64
	Pending      int
	Blocked      bool // later nonces wait for a missing one
	BlockedSince time.Time
}

// Streams reports every stream, by name.
func (s *State) Streams() []StreamStatus {
	out := make([]StreamStatus, 0, len(s.streams))
	for name, st := range s.streams {
		_, head := st.pending[st.next]
		out = append(out, StreamStatus{Stream: name, Next: st.next, Pending: len(st.pending),
			Blocked: !head && len(st.pending) > 0, BlockedSince: st.blockedSince})
	}
	slices.SortFunc(out, func(a, b StreamStatus) int {
		switch {
		case a.Stream < b.Stream:
			return -1
		case a.Stream > b.Stream:
			return 1
		}
		return 0
	})
	return out
}

// Votes returns the signer's ballots of one round of an event: voter ->
// hash, no-votes as the zero hash with none set.
func (s *State) Votes(id Hash, round uint32) []Ballot {
	e, ok := s.events[id]
	if !ok {
		return nil
	}
	return e.ballots(round)
}

func (e *EventState) ballots(round uint32) []Ballot {
	m := e.votes[round]
	out := make([]Ballot, 0, len(m))
	for v, b := range m {
		out = append(out, Ballot{Voter: v, Hash: b.hash, None: b.none})
	}
	slices.SortFunc(out, func(a, b Ballot) int {
		switch {
		case a.Voter < b.Voter:
			return -1
		case a.Voter > b.Voter:
			return 1
		}
		return 0
	})
	return out
}

func (e *EventState) roundBallots() map[uint32][]Ballot {
	out := make(map[uint32][]Ballot, len(e.votes))
	for r := range e.votes {
		out[r] = e.ballots(r)
	}
	return out
}

// emit applies a fact decided now and queues it for the log; a fact
// about a message already recorded (see recordedOnce) is not recorded
// again.
func (s *State) emit(f Fact) {
	if _, once := f.(recordedOnce); once && s.recorded[f.SourceKey()] {
		return
	}
	s.Apply(f)
	s.step.Facts = append(s.step.Facts, f)
}

// take returns the step built so far and starts a new one.
func (s *State) take() Step {
	st := s.step
	s.step = Step{}
	return st
}

func (s *State) observe(name, label string, v float64) {
	s.step.Metrics = append(s.step.Metrics, Observation{Name: name, Label: label, Value: v})
}

func (s *State) quorum() int { return s.cfg.Group.Quorum }
