package twophase

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// RetryConfig is the seed's RETRY_CONFIG: after a failed round the next
// one starts after min(MaxDelay, BaseDelay * Multiplier^retry) ± Jitter;
// after MaxRetries failed retries the event is Abandoned.
type RetryConfig struct {
	MaxRetries uint32        `json:"maxRetries"`
	BaseDelay  time.Duration `json:"baseDelay"`
	MaxDelay   time.Duration `json:"maxDelay"`
	Multiplier float64       `json:"multiplier"`
	Jitter     time.Duration `json:"jitter"`
}

// Params are the protocol's timings and bounds; the zero value of each
// field takes the seed's recommended value ([Params.WithDefaults]).
type Params struct {
	// ProposalTimeout is PROPOSAL_TIMEOUT_MS for round 0; later rounds wait
	// longer (×ProposalTimeoutGrowth per round) up to ProposalTimeoutMax.
	ProposalTimeout       time.Duration `json:"proposalTimeout"`
	ProposalTimeoutGrowth float64       `json:"proposalTimeoutGrowth"`
	ProposalTimeoutMax    time.Duration `json:"proposalTimeoutMax"`
	Retry                 RetryConfig   `json:"retry"`
	// CompletionTimeout bounds the wait, after a commit, for the payout to
	// be accepted and deep; past it the event is Abandoned.
	CompletionTimeout time.Duration `json:"completionTimeout"`
	// Tick is how often timers, retries and anti-entropy run.
	Tick time.Duration `json:"tick"`

	// MinInputDepth is MIN_INPUT_SCORE_DEPTH in DAA score: a UTXO is
	// selectable when its DAA score is at least this far below the
	// virtual DAA score.
	MinInputDepth uint64 `json:"minInputDepth"`
	// CoinbaseMaturity: a coinbase output is spendable when its DAA score
	// plus this is below the virtual DAA score.
	CoinbaseMaturity uint64 `json:"coinbaseMaturity"`
	// PayoutDepth is how deep (DAA score) an accepted payout must be before
	// the event is Completed.
	PayoutDepth uint64 `json:"payoutDepth"`
	// FeeRate is the fee per unit of mass every signer builds with; fixed
	// by configuration so that signers with equal views build equal
	// templates.
	FeeRate uint64 `json:"feeRate"`

	MaxUTXOsPerProposal     int `json:"maxUtxosPerProposal"`
	MaxOutputsPerProposal   int `json:"maxOutputsPerProposal"`
	MaxTemplateBytes        int `json:"maxTemplateBytes"`
	MaxProposalBytes        int `json:"maxProposalBytes"`
	MaxSyncEventsPerTick    int `json:"maxSyncEventsPerTick"`
	MaxProposalsPerResponse int `json:"maxProposalsPerResponse"`
	// SyncPeersPerTick is how many peers one tick asks for state.
	SyncPeersPerTick int `json:"syncPeersPerTick"`
	// StateSyncCooldown is STATE_SYNC_COOLDOWN_MS: the least time between
	// two targeted syncs triggered by one peer for one event.
	StateSyncCooldown time.Duration `json:"stateSyncCooldown"`
	// SyncRequestsPerPeerPerMinute bounds targeted syncs one peer's
	// future-round proposals can trigger, over all events.
	SyncRequestsPerPeerPerMinute int `json:"syncRequestsPerPeerPerMinute"`
	// Retention keeps a terminal event's state this long before GC.
	Retention time.Duration `json:"retention"`
	// SignatureCollectors is how many members first receive every
	// member's payout signature of an event (see State.sendCommit).
	SignatureCollectors int `json:"signatureCollectors"`
	// MessagesPerSecondPerPeer and MessageBurstPerPeer bound what one
	// member may send (a token bucket keyed on the verified sender).
	MessagesPerSecondPerPeer int `json:"messagesPerSecondPerPeer"`
	MessageBurstPerPeer      int `json:"messageBurstPerPeer"`

	// Profile B. AnchorStep: members anchor their plans at their virtual
	// DAA score rounded down to a multiple of it, so that nodes a few
	// blocks apart name the same anchor. MaxAnchorAge: a plan whose anchor
	// is further behind a member's virtual DAA score is stale (section
	// 8.6); the next round anchors anew. MaxActiveEvents bounds the events
	// a member runs at once (one per stream at most).
	AnchorStep      uint64 `json:"anchorStep"`
	MaxAnchorAge    uint64 `json:"maxAnchorAge"`
	MaxActiveEvents int    `json:"maxActiveEvents"`
	// ReserveOutputs, when not 0, is the deep UTXO reserve (section
	// 8.5.8): an idle group with fewer deep outputs splits its largest
	// into this many (see ReserveStream). 0: off.
	ReserveOutputs int `json:"reserveOutputs,omitempty"`
}

// Seed defaults (section 2.2), and this implementation's for what the seed
// leaves open.
var defaultParams = Params{
	ProposalTimeout:       5 * time.Second,
	ProposalTimeoutGrowth: 1.5,
	ProposalTimeoutMax:    30 * time.Second,
	Retry: RetryConfig{MaxRetries: 3, BaseDelay: 5 * time.Second, MaxDelay: 30 * time.Second,
		Multiplier: 2, Jitter: 250 * time.Millisecond},
	CompletionTimeout:            10 * time.Minute,
	Tick:                         time.Second,
	MinInputDepth:                300,
	CoinbaseMaturity:             1000,
	PayoutDepth:                  100,
	FeeRate:                      1,
	MaxUTXOsPerProposal:          100,
	MaxOutputsPerProposal:        16,
	MaxTemplateBytes:             64 << 10,
	MaxProposalBytes:             64 << 10,
	MaxSyncEventsPerTick:         64,
	MaxProposalsPerResponse:      MaxMembers,
	SyncPeersPerTick:             3,
	StateSyncCooldown:            2 * time.Second,
	SyncRequestsPerPeerPerMinute: 60,
	Retention:                    time.Hour,
	SignatureCollectors:          3,
	MessagesPerSecondPerPeer:     500,
	MessageBurstPerPeer:          2000,
	AnchorStep:                   100,
	MaxActiveEvents:              64,
}

// DefaultParams returns the defaults.
func DefaultParams() Params { return defaultParams.WithDefaults() }

// WithDefaults fills every zero field with its default. Retry is taken
// whole from the defaults when MaxRetries, BaseDelay and MaxDelay are all
// zero, so MaxRetries 0 can be asked for with explicit delays.
func (p Params) WithDefaults() Params {
	d := defaultParams
	setDur := func(v *time.Duration, def time.Duration) {
		if *v == 0 {
			*v = def
		}
	}
	setDur(&p.ProposalTimeout, d.ProposalTimeout)
	setDur(&p.ProposalTimeoutMax, max(d.ProposalTimeoutMax, p.ProposalTimeout))
	setDur(&p.CompletionTimeout, d.CompletionTimeout)
	setDur(&p.Tick, d.Tick)
	setDur(&p.StateSyncCooldown, d.StateSyncCooldown)
	setDur(&p.Retention, d.Retention)
	if p.ProposalTimeoutGrowth == 0 {
		p.ProposalTimeoutGrowth = d.ProposalTimeoutGrowth
	}
	if p.Retry.MaxRetries == 0 && p.Retry.BaseDelay == 0 && p.Retry.MaxDelay == 0 {
		p.Retry = d.Retry
	}
	if p.Retry.Multiplier == 0 {
		p.Retry.Multiplier = d.Retry.Multiplier
	}
	setDur(&p.Retry.MaxDelay, max(p.Retry.BaseDelay, d.Retry.MaxDelay))
	for _, f := range []struct {
		v   *uint64
		def uint64
	}{{&p.MinInputDepth, d.MinInputDepth}, {&p.CoinbaseMaturity, d.CoinbaseMaturity},
		{&p.PayoutDepth, d.PayoutDepth}, {&p.FeeRate, d.FeeRate}, {&p.AnchorStep, d.AnchorStep}} {
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	for _, f := range []struct {
		v   *int
		def int
	}{{&p.MaxUTXOsPerProposal, d.MaxUTXOsPerProposal}, {&p.MaxOutputsPerProposal, d.MaxOutputsPerProposal},
		{&p.MaxTemplateBytes, d.MaxTemplateBytes}, {&p.MaxProposalBytes, d.MaxProposalBytes},
		{&p.MaxSyncEventsPerTick, d.MaxSyncEventsPerTick}, {&p.MaxProposalsPerResponse, d.MaxProposalsPerResponse},
		{&p.SyncPeersPerTick, d.SyncPeersPerTick}, {&p.SyncRequestsPerPeerPerMinute, d.SyncRequestsPerPeerPerMinute},
		{&p.MessagesPerSecondPerPeer, d.MessagesPerSecondPerPeer}, {&p.SignatureCollectors, d.SignatureCollectors}, {&p.MessageBurstPerPeer, d.MessageBurstPerPeer},
		{&p.MaxActiveEvents, d.MaxActiveEvents}} {
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	if p.MaxAnchorAge == 0 {
		p.MaxAnchorAge = 10*p.AnchorStep + p.MinInputDepth
	}
	return p
}

// ErrParams: a parameter that cannot work.
var ErrParams = errors.New("invalid protocol parameters")

// Validate refuses parameters that cannot work (after WithDefaults).
func (p Params) Validate() error {
	switch {
	case p.ProposalTimeout <= 0 || p.ProposalTimeoutMax < p.ProposalTimeout:
		return fmt.Errorf("%w: proposal timeout %v, max %v", ErrParams, p.ProposalTimeout, p.ProposalTimeoutMax)
	case p.ProposalTimeoutGrowth < 1:
		return fmt.Errorf("%w: proposal timeout growth %v below 1", ErrParams, p.ProposalTimeoutGrowth)
	case p.Retry.BaseDelay < 0 || p.Retry.MaxDelay < p.Retry.BaseDelay || p.Retry.Multiplier < 1 || p.Retry.Jitter < 0:
		return fmt.Errorf("%w: retry %+v", ErrParams, p.Retry)
	case p.Retry.Jitter > p.Retry.BaseDelay && p.Retry.BaseDelay > 0:
		return fmt.Errorf("%w: retry jitter %v larger than the base delay %v", ErrParams, p.Retry.Jitter, p.Retry.BaseDelay)
	case p.Tick <= 0 || p.CompletionTimeout <= 0:
		return fmt.Errorf("%w: tick %v, completion timeout %v", ErrParams, p.Tick, p.CompletionTimeout)
	case p.MaxUTXOsPerProposal < 1 || p.MaxOutputsPerProposal < 2 || p.MaxTemplateBytes < 256 || p.MaxProposalBytes < p.MaxTemplateBytes:
		return fmt.Errorf("%w: proposal bounds utxos %d outputs %d template %d proposal %d", ErrParams,
			p.MaxUTXOsPerProposal, p.MaxOutputsPerProposal, p.MaxTemplateBytes, p.MaxProposalBytes)
	case p.ReserveOutputs < 0 || p.ReserveOutputs == 1 || p.ReserveOutputs > p.MaxOutputsPerProposal:
		return fmt.Errorf("%w: reserve outputs %d, want 0 (off) or 2..%d", ErrParams, p.ReserveOutputs, p.MaxOutputsPerProposal)
	case p.MaxAnchorAge < p.AnchorStep+p.MinInputDepth:
		return fmt.Errorf("%w: max anchor age %d below anchor step %d plus the input depth %d: no anchor would stay usable",
			ErrParams, p.MaxAnchorAge, p.AnchorStep, p.MinInputDepth)
	}
	return nil
}

// ProposalTimeoutFor is the adaptive timeout of a round: round 0 waits
// ProposalTimeout, each later round Growth times longer, never more than
// ProposalTimeoutMax (a transient lag should not make every retry fail).
func (p Params) ProposalTimeoutFor(round uint32) time.Duration {
	t := float64(p.ProposalTimeout) * math.Pow(p.ProposalTimeoutGrowth, float64(round))
	if t >= float64(p.ProposalTimeoutMax) {
		return p.ProposalTimeoutMax
	}
	return time.Duration(t)
}

// RetryDelay is the wait after the retry-th failed round (0-based) before
// the next round starts: min(MaxDelay, BaseDelay*Multiplier^retry) moved by
// jitter, a value in [-1, 1] that the caller derives deterministically.
func (c RetryConfig) RetryDelay(retry uint32, jitter float64) time.Duration {
	d := float64(c.BaseDelay) * math.Pow(c.Multiplier, float64(retry))
	if d > float64(c.MaxDelay) {
		d = float64(c.MaxDelay)
	}
	if jitter != jitter { // NaN
		jitter = 0
	}
	jitter = max(-1, min(1, jitter))
	d += jitter * float64(c.Jitter)
	return time.Duration(max(0, d))
}

// MaxRounds is the seed's hard bound: 1 + MaxRetries rounds before an
// event is Abandoned.
func (p Params) MaxRounds() uint32 { return 1 + p.Retry.MaxRetries }

// MaxTimeToAbandon bounds how long an event can stay non-terminal from its
// first round: every round's timeout, every retry's longest delay, and the
// completion timeout once committed (section 15.2, plus the wait for the
// payout that the seed leaves to its CRDT path).
func (p Params) MaxTimeToAbandon() time.Duration {
	var total time.Duration
	for r := uint32(0); r < p.MaxRounds(); r++ {
		total += p.ProposalTimeoutFor(r)
	}
	for i := uint32(0); i < p.Retry.MaxRetries; i++ {
		total += p.Retry.RetryDelay(i, 1)
	}
	return total + p.CompletionTimeout
}

// jitterFor derives a retry's jitter in [-1, 1] from the event, the round
// and the signer, so that signers do not retry in lockstep and a replay
// computes the same delay.
func jitterFor(event Hash, round uint32, self PeerID) float64 {
	var w writer
	w.hash(event)
	w.u32(round)
	w.str(string(self))
	h := taggedHash("bridgelog/twophase/retry-jitter/v1", w.out())
	v := uint64(h[0])<<24 | uint64(h[1])<<16 | uint64(h[2])<<8 | uint64(h[3])
	return float64(v)/float64(1<<32)*2 - 1
}

// Policy is what the group agrees an event may ask for.
type Policy struct {
	// MaxAmount per event (0: no limit), MinAmount below which a payout is
	// refused (dust).
	MaxAmount uint64 `json:"maxAmount"`
	MinAmount uint64 `json:"minAmount"`
	// MaxFee bounds a template's fee (0: no bound beyond the fee rate).
	MaxFee uint64 `json:"maxFee"`
	// MinChange: a remainder below it goes to the fee instead of a change
	// output (a tiny output costs more to spend than it is worth).
	MinChange uint64 `json:"minChange"`
	// AllowedDestinations, when not empty, is the only set of addresses an
	// event may pay; DeniedDestinations are refused.
	AllowedDestinations []string `json:"allowedDestinations,omitempty"`
	DeniedDestinations  []string `json:"deniedDestinations,omitempty"`
}
