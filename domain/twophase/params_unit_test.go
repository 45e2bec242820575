package twophase

import (
	"errors"
	"math"
	"reflect"
	"testing"
	"time"
)

// The zero Params take the seed's recommended values (section 2.2) and
// this implementation's for what the seed leaves open.
func TestWithDefaultsSeedValues(t *testing.T) {
	p := Params{}.WithDefaults()
	seed := []struct {
		name      string
		got, want any
	}{
		{"PROPOSAL_TIMEOUT_MS", p.ProposalTimeout, 5 * time.Second},
		{"RETRY_CONFIG", p.Retry, RetryConfig{MaxRetries: 3, BaseDelay: 5 * time.Second, MaxDelay: 30 * time.Second, Multiplier: 2.0, Jitter: 250 * time.Millisecond}},
		{"MAX_UTXOS_PER_PROPOSAL", p.MaxUTXOsPerProposal, 100},
		{"MAX_PROPOSAL_SIZE_BYTES", p.MaxProposalBytes, 64 << 10},
		{"MIN_INPUT_SCORE_DEPTH", p.MinInputDepth, uint64(300)},
		{"MAX_SYNC_EVENTS_PER_TICK", p.MaxSyncEventsPerTick, 64},
		{"MAX_PROPOSALS_PER_EVENT_PER_RESPONSE = min(N, 20)", p.MaxProposalsPerResponse, 20},
		{"STATE_SYNC_COOLDOWN_MS", p.StateSyncCooldown, 2 * time.Second},
		// Beyond the seed.
		{"proposal timeout growth", p.ProposalTimeoutGrowth, 1.5},
		{"proposal timeout max", p.ProposalTimeoutMax, 30 * time.Second},
		{"completion timeout", p.CompletionTimeout, 10 * time.Minute},
		{"tick", p.Tick, time.Second},
		{"coinbase maturity", p.CoinbaseMaturity, uint64(1000)},
		{"payout depth", p.PayoutDepth, uint64(100)},
		{"fee rate", p.FeeRate, uint64(1)},
		{"max outputs", p.MaxOutputsPerProposal, 16},
		{"max template bytes", p.MaxTemplateBytes, 64 << 10},
		{"sync peers per tick", p.SyncPeersPerTick, 3},
		{"sync requests per peer per minute", p.SyncRequestsPerPeerPerMinute, 60},
		{"retention", p.Retention, time.Hour},
		{"signature collectors", p.SignatureCollectors, 3},
		{"messages per second per peer", p.MessagesPerSecondPerPeer, 500},
		{"message burst per peer", p.MessageBurstPerPeer, 2000},
	}
	for _, c := range seed {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if !reflect.DeepEqual(p, DefaultParams()) {
		t.Errorf("zero params with defaults %+v differ from DefaultParams %+v", p, DefaultParams())
	}
	if err := p.Validate(); err != nil {
		t.Errorf("the defaults do not validate: %v", err)
	}
	// No field is left at zero: a new field needs a default. The deep
	// UTXO reserve is off unless asked for.
	v := reflect.ValueOf(p)
	for i := 0; i < v.NumField(); i++ {
		if v.Field(i).IsZero() && v.Type().Field(i).Name != "ReserveOutputs" {
			t.Errorf("%s has no default", v.Type().Field(i).Name)
		}
	}
}

func TestWithDefaultsKeepsWhatIsSet(t *testing.T) {
	set := Params{ProposalTimeout: 2 * time.Second, ProposalTimeoutGrowth: 1.2, ProposalTimeoutMax: 9 * time.Second,
		Retry:             RetryConfig{MaxRetries: 7, BaseDelay: time.Second, MaxDelay: 4 * time.Second, Multiplier: 3, Jitter: 10 * time.Millisecond},
		CompletionTimeout: time.Minute, Tick: 100 * time.Millisecond, MinInputDepth: 5, CoinbaseMaturity: 6, PayoutDepth: 7,
		FeeRate: 8, MaxUTXOsPerProposal: 9, MaxOutputsPerProposal: 10, MaxTemplateBytes: 1000, MaxProposalBytes: 2000,
		MaxSyncEventsPerTick: 11, MaxProposalsPerResponse: 12, SyncPeersPerTick: 13, StateSyncCooldown: time.Millisecond,
		SyncRequestsPerPeerPerMinute: 14, Retention: time.Minute, SignatureCollectors: 15, MessagesPerSecondPerPeer: 16,
		MessageBurstPerPeer: 17, AnchorStep: 18, MaxAnchorAge: 19, MaxActiveEvents: 20}
	if got := set.WithDefaults(); !reflect.DeepEqual(got, set) {
		t.Fatalf("WithDefaults changed set fields:\n got %+v\nwant %+v", got, set)
	}
	d := DefaultParams()
	if got := d.WithDefaults(); !reflect.DeepEqual(got, d) {
		t.Fatal("WithDefaults is not idempotent")
	}
}

func TestWithDefaultsDependentFields(t *testing.T) {
	cases := []struct {
		name  string
		in    Params
		check func(Params) bool
	}{
		{"a long first timeout raises the max", Params{ProposalTimeout: 40 * time.Second},
			func(p Params) bool { return p.ProposalTimeoutMax == 40*time.Second }},
		{"a short first timeout keeps the default max", Params{ProposalTimeout: time.Second},
			func(p Params) bool { return p.ProposalTimeoutMax == 30*time.Second }},
		{"MaxRetries 0 with explicit delays is kept", Params{Retry: RetryConfig{BaseDelay: time.Second}},
			func(p Params) bool {
				return p.Retry.MaxRetries == 0 && p.Retry.BaseDelay == time.Second && p.Retry.MaxDelay == 30*time.Second &&
					p.Retry.Multiplier == 2 && p.Retry.Jitter == 0 && p.MaxRounds() == 1
			}},
		{"a base delay above the default max raises the max", Params{Retry: RetryConfig{MaxRetries: 1, BaseDelay: time.Minute}},
			func(p Params) bool { return p.Retry.MaxDelay == time.Minute }},
		{"no retries nor delays: the retry is taken whole from the defaults", Params{Retry: RetryConfig{Multiplier: 3}},
			func(p Params) bool { return p.Retry == DefaultParams().Retry }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.in.WithDefaults()
			if !c.check(p) {
				t.Fatalf("got %+v", p)
			}
			if err := p.Validate(); err != nil {
				t.Fatalf("does not validate: %v", err)
			}
		})
	}
}

func TestParamsValidate(t *testing.T) {
	cases := map[string]func(*Params){
		"zero first timeout":       func(p *Params) { p.ProposalTimeout = 0 },
		"negative first timeout":   func(p *Params) { p.ProposalTimeout = -time.Second },
		"max below first timeout":  func(p *Params) { p.ProposalTimeoutMax = p.ProposalTimeout - 1 },
		"shrinking timeouts":       func(p *Params) { p.ProposalTimeoutGrowth = 0.9 },
		"negative base delay":      func(p *Params) { p.Retry.BaseDelay = -1 },
		"max delay below base":     func(p *Params) { p.Retry.MaxDelay = p.Retry.BaseDelay - 1 },
		"shrinking delays":         func(p *Params) { p.Retry.Multiplier = 0.5 },
		"negative jitter":          func(p *Params) { p.Retry.Jitter = -1 },
		"jitter above base delay":  func(p *Params) { p.Retry.Jitter = p.Retry.BaseDelay + 1 },
		"zero tick":                func(p *Params) { p.Tick = 0 },
		"zero completion timeout":  func(p *Params) { p.CompletionTimeout = 0 },
		"no utxos per proposal":    func(p *Params) { p.MaxUTXOsPerProposal = 0 },
		"one output per proposal":  func(p *Params) { p.MaxOutputsPerProposal = 1 },
		"template bound below 256": func(p *Params) { p.MaxTemplateBytes = 255 },
		"proposal below template":  func(p *Params) { p.MaxProposalBytes = p.MaxTemplateBytes - 1 },
		"negative growth":          func(p *Params) { p.ProposalTimeoutGrowth = -2 },
		"negative utxos":           func(p *Params) { p.MaxUTXOsPerProposal = -1 },
		"negative completion":      func(p *Params) { p.CompletionTimeout = -time.Minute },
		"negative max retry delay": func(p *Params) { p.Retry.BaseDelay, p.Retry.MaxDelay = 0, -1 },
		"negative proposal bound":  func(p *Params) { p.MaxProposalBytes = -1 },
		"negative template bound":  func(p *Params) { p.MaxTemplateBytes = -1 },
		"negative outputs":         func(p *Params) { p.MaxOutputsPerProposal = -1 },
		"zero multiplier":          func(p *Params) { p.Retry.Multiplier = 0 },
		"negative tick":            func(p *Params) { p.Tick = -time.Second },
		"zero growth":              func(p *Params) { p.ProposalTimeoutGrowth = 0 },
		"negative first and max":   func(p *Params) { p.ProposalTimeout, p.ProposalTimeoutMax = -2, -1 },
	}
	for name, edit := range cases {
		t.Run(name, func(t *testing.T) {
			p := DefaultParams()
			edit(&p)
			if err := p.Validate(); !errors.Is(err, ErrParams) {
				t.Fatalf("Validate = %v, want ErrParams", err)
			}
		})
	}
	// The bounds themselves pass.
	p := DefaultParams()
	p.ProposalTimeoutMax, p.ProposalTimeoutGrowth = p.ProposalTimeout, 1
	p.Retry.MaxDelay, p.Retry.Multiplier, p.Retry.Jitter = p.Retry.BaseDelay, 1, p.Retry.BaseDelay
	p.MaxUTXOsPerProposal, p.MaxOutputsPerProposal, p.MaxTemplateBytes, p.MaxProposalBytes = 1, 2, 256, 256
	if err := p.Validate(); err != nil {
		t.Fatalf("the bounds themselves are refused: %v", err)
	}
	// A zero base delay admits any jitter: the delay is clamped at 0.
	p = DefaultParams()
	p.Retry.BaseDelay, p.Retry.Jitter = 0, time.Second
	if err := p.Validate(); err != nil {
		t.Fatalf("jitter with a zero base delay refused: %v", err)
	}
}

func TestProposalTimeoutFor(t *testing.T) {
	p := DefaultParams()
	want := []time.Duration{5 * time.Second, 7500 * time.Millisecond, 11250 * time.Millisecond,
		16875 * time.Millisecond, 25312500 * time.Microsecond, 30 * time.Second, 30 * time.Second}
	for r, w := range want {
		if got := p.ProposalTimeoutFor(uint32(r)); got != w {
			t.Errorf("round %d: %v, want %v", r, got, w)
		}
	}
	for _, r := range []uint32{100, 10_000, math.MaxUint32} {
		if got := p.ProposalTimeoutFor(r); got != p.ProposalTimeoutMax {
			t.Errorf("round %d: %v, want the cap %v", r, got, p.ProposalTimeoutMax)
		}
	}
	p.ProposalTimeoutGrowth = 1
	if got := p.ProposalTimeoutFor(9); got != p.ProposalTimeout {
		t.Errorf("growth 1: round 9 waits %v", got)
	}
}

func TestRetryDelay(t *testing.T) {
	c := DefaultParams().Retry
	cases := []struct {
		retry  uint32
		jitter float64
		want   time.Duration
	}{
		{0, 0, 5 * time.Second},
		{1, 0, 10 * time.Second},
		{2, 0, 20 * time.Second},
		{3, 0, 30 * time.Second}, // 40 s capped
		{math.MaxUint32, 0, 30 * time.Second},
		{0, 1, 5*time.Second + 250*time.Millisecond},
		{0, -1, 5*time.Second - 250*time.Millisecond},
		{1, 0.5, 10*time.Second + 125*time.Millisecond},
		{3, 1, 30*time.Second + 250*time.Millisecond}, // jitter applies after the cap
		{0, 7, 5*time.Second + 250*time.Millisecond},  // clamped to 1
		{0, -7, 5*time.Second - 250*time.Millisecond}, // clamped to -1
	}
	for _, k := range cases {
		if got := c.RetryDelay(k.retry, k.jitter); got != k.want {
			t.Errorf("RetryDelay(%d, %v) = %v, want %v", k.retry, k.jitter, got, k.want)
		}
	}
	small := RetryConfig{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second, Multiplier: 2, Jitter: 250 * time.Millisecond}
	if got := small.RetryDelay(0, -1); got != 0 {
		t.Errorf("a negative delay is not clamped to 0: %v", got)
	}
}

func TestJitterInRange(t *testing.T) {
	seen := map[float64]bool{}
	for r := uint32(0); r < 200; r++ {
		j := jitterFor(hashByte(byte(r)), r, "s1")
		if j < -1 || j >= 1 || math.IsNaN(j) {
			t.Fatalf("jitter %v out of [-1, 1)", j)
		}
		if j != jitterFor(hashByte(byte(r)), r, "s1") {
			t.Fatal("jitter is not deterministic")
		}
		seen[j] = true
	}
	if len(seen) < 190 {
		t.Fatalf("only %d distinct jitters of 200", len(seen))
	}
	if jitterFor(Hash{}, 0, "s1") == jitterFor(Hash{}, 0, "s2") {
		t.Fatal("two signers retry in lockstep")
	}
}

func TestMaxRounds(t *testing.T) {
	for _, n := range []uint32{0, 1, 3, 10} {
		p := DefaultParams()
		p.Retry.MaxRetries = n
		if p.MaxRounds() != 1+n {
			t.Errorf("MaxRetries %d: %d rounds", n, p.MaxRounds())
		}
	}
}

// MaxTimeToAbandon is section 15.2's bound with the adaptive timeout, the
// jitter at its largest and the completion wait, computed here by hand.
func TestMaxTimeToAbandon(t *testing.T) {
	p := DefaultParams()
	// 4 rounds: 5 + 7.5 + 11.25 + 16.875 s.
	timeouts := 5*time.Second + 7500*time.Millisecond + 11250*time.Millisecond + 16875*time.Millisecond
	// 3 retries: 5, 10, 20 s, each + 250 ms.
	delays := (5 + 10 + 20) * time.Second
	delays += 3 * 250 * time.Millisecond
	if got, want := p.MaxTimeToAbandon(), timeouts+delays+10*time.Minute; got != want {
		t.Fatalf("defaults: %v, want %v", got, want)
	}

	// The seed's non-adaptive form: growth 1, delays at their cap, no jitter.
	q := DefaultParams()
	q.ProposalTimeoutGrowth, q.Retry.MaxRetries, q.Retry.Jitter = 1, 5, 0
	q.CompletionTimeout = time.Second
	want := 6*5*time.Second + (5+10+20+30+30)*time.Second + time.Second
	if got := q.MaxTimeToAbandon(); got != want {
		t.Fatalf("growth 1, 5 retries: %v, want %v", got, want)
	}
	// Upper bound of 15.2: (1+max_retries)*timeout_max + max_retries*(max_delay+jitter) + completion.
	bound := time.Duration(q.MaxRounds())*q.ProposalTimeoutMax + time.Duration(q.Retry.MaxRetries)*(q.Retry.MaxDelay+q.Retry.Jitter) + q.CompletionTimeout
	if q.MaxTimeToAbandon() > bound {
		t.Fatalf("%v above the section 15.2 bound %v", q.MaxTimeToAbandon(), bound)
	}

	zero := DefaultParams()
	zero.Retry.MaxRetries = 0
	if got := zero.MaxTimeToAbandon(); got != 5*time.Second+10*time.Minute {
		t.Fatalf("no retries: %v", got)
	}
}
