// Package simulate runs N signers of the signing coordinator in one
// process, in virtual time, on a simulated ledger and a faulty bus:
// `bridgelog simulate`. The signers are the real ones (handlers/signing
// on domain/twophase, each with its own log); only the clock, the network
// and the ledger are simulated. A run is deterministic by its seed.
package simulate

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bridgelog/bridgelog/adapters/simnet"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// Config is one simulation.
type Config struct {
	Signers, Quorum int
	Events, Streams int
	// EventEvery is the time between two burns at the source.
	EventEvery time.Duration
	Faults     simnet.Faults
	// Crash is the probability, per event, that a signer crashes while the
	// event is being paid (right after it records a decision, before it
	// sends it) and restarts from its log a moment later.
	Crash float64
	// Invalidate is the probability, per event, that an input of a
	// proposed template is reorganised away before the commit.
	Invalidate float64
	// LosePayout is the probability, per event, that its first signed
	// payout never lands: the node drops it (it is sent again), or a
	// conflicting transaction spends one of its inputs (it is voided and
	// replaced), half the time each.
	LosePayout float64
	// Unpayable is the probability, per event, that its burn names a
	// destination or amount the group refuses (not an address, the
	// group's own, a denied one, over the per-event limit).
	Unpayable float64
	// DAAPerSecond is the ledger's block rate (default 10, Kaspa's; a
	// kaspad simnet miner's default is 20).
	DAAPerSecond uint64
	// Lags make signers' nodes (ledger and source) lag: signer index -> lag.
	Lags map[int]time.Duration
	Seed uint64
	// Params are the protocol's (defaults: the seed's, with a 1 s tick).
	Params twophase.Params
	// Diverge is the probability, per event, that the nodes of half the
	// honest signers see the output the first proposal spends as just
	// created (a block they received late), so that they build another
	// template until it is deep in their view.
	Diverge float64
	// Profile is the group's fault model (default twophase.ProfileA).
	Profile twophase.Profile
	// Byzantine signers are the highest-numbered ones; Behaviour is what
	// they do (default BehaviourMixed).
	Byzantine int
	Behaviour Behaviour
	// CheckProjections folds every signer's log through its SQL
	// projections at the end and compares them with its state.
	CheckProjections bool
	// LogDir, when set, receives each honest signer's log at the end, as
	// an embedded log in LogDir/<signer>/log (see keepLogs).
	LogDir string
}

// Errors of a configuration that cannot run.
var ErrConfig = errors.New("simulate: bad configuration")

func (c *Config) setDefaults() {
	if c.Streams == 0 {
		c.Streams = 1
	}
	if c.EventEvery == 0 {
		c.EventEvery = 100 * time.Millisecond
	}
	if c.Profile == "" {
		c.Profile = twophase.ProfileA
	}
	if c.Quorum == 0 {
		c.Quorum = c.Signers/2 + 1
		if c.Profile == twophase.ProfileB {
			c.Quorum = twophase.ProfileBQuorum(c.Signers, faultsTolerated(c.Signers))
		}
	}
	if c.DAAPerSecond == 0 {
		c.DAAPerSecond = daaPerSecond
	}
	if c.Behaviour == "" {
		c.Behaviour = BehaviourMixed
	}
	p := c.Params
	if p.MinInputDepth == 0 {
		p.MinInputDepth = 50 // 5 s at 10 DAA/s
	}
	if p.CoinbaseMaturity == 0 {
		p.CoinbaseMaturity = 100
	}
	if p.PayoutDepth == 0 {
		p.PayoutDepth = 10
	}
	if p.CompletionTimeout == 0 {
		p.CompletionTimeout = 2 * time.Minute
	}
	if p.Retention == 0 {
		p.Retention = time.Minute
	}
	c.Params = p.WithDefaults()
}

// faultsTolerated is f of a Profile B group of n signers: the most
// Byzantine signers it tolerates (n >= 3f+1).
func faultsTolerated(n int) int { return (n - 1) / 3 }

func (c *Config) validate() error {
	switch {
	case c.Profile != twophase.ProfileA && c.Profile != twophase.ProfileB:
		return fmt.Errorf("%w: --profile %q, want %q or %q", ErrConfig, c.Profile, twophase.ProfileA, twophase.ProfileB)
	case c.Signers < 1 || c.Signers > twophase.MaxMembers:
		return fmt.Errorf("%w: --signers %d, want 1..%d", ErrConfig, c.Signers, twophase.MaxMembers)
	case c.Quorum < 1 || c.Quorum > c.Signers:
		return fmt.Errorf("%w: --quorum %d of %d signers: %w", ErrConfig, c.Quorum, c.Signers, twophase.ErrQuorumRange)
	case c.Profile == twophase.ProfileA && 2*c.Quorum <= c.Signers:
		return fmt.Errorf("%w: --quorum %d of %d signers: %w (Profile A needs at least %d)", ErrConfig, c.Quorum, c.Signers,
			twophase.ErrQuorumNotMajority, c.Signers/2+1)
	case c.Events < 0 || c.Streams < 1:
		return fmt.Errorf("%w: --events %d --streams %d", ErrConfig, c.Events, c.Streams)
	case c.Faults.Loss < 0 || c.Faults.Loss >= 1 || c.Faults.Duplicate < 0 || c.Faults.Duplicate > 1 ||
		c.Faults.Reorder < 0 || c.Faults.Reorder > 1 || c.Crash < 0 || c.Crash > 1 || c.Invalidate < 0 || c.Invalidate > 1 ||
		c.Diverge < 0 || c.Diverge > 1 || c.LosePayout < 0 || c.LosePayout > 1 || c.Unpayable < 0 || c.Unpayable > 1:
		return fmt.Errorf("%w: probabilities must be in [0, 1) for --loss and [0, 1] for the others", ErrConfig)
	case c.Byzantine < 0 || c.Byzantine >= c.Signers:
		return fmt.Errorf("%w: --byzantine %d of %d signers, want 0..%d (one signer at least is honest)", ErrConfig, c.Byzantine, c.Signers, c.Signers-1)
	case !slices.Contains(Behaviours, c.Behaviour):
		return fmt.Errorf("%w: --byzantine-behaviour %q, want one of %v", ErrConfig, c.Behaviour, Behaviours)
	case c.Behaviour == BehaviourReserveSpam && c.Byzantine > 0 && c.Params.ReserveOutputs == 0:
		return fmt.Errorf("%w: --byzantine-behaviour reserve-spam needs the reserve on (--reserve-outputs K)", ErrConfig)
	case c.DAAPerSecond > 1000:
		return fmt.Errorf("%w: %d blocks a second, want at most 1000", ErrConfig, c.DAAPerSecond)
	case c.Faults.Delay < 0 || c.Faults.Jitter < 0:
		return fmt.Errorf("%w: negative delay or jitter", ErrConfig)
	}
	for i := range c.Lags {
		if i < 1 || i > c.Signers {
			return fmt.Errorf("%w: --lag names signer %d of %d", ErrConfig, i, c.Signers)
		}
	}
	for _, p := range c.Faults.Partitions {
		n := 0
		for _, g := range p.Groups {
			n += g
		}
		if n != c.Signers {
			return fmt.Errorf("%w: --partition groups %v add up to %d, not %d signers", ErrConfig, p.Groups, n, c.Signers)
		}
	}
	return nil
}

// ParsePartitions reads --partition: comma-separated SIZES@START+DURATION,
// e.g. 2/3@10s+30s splits 5 signers into the first 2 and the other 3 from
// 10 s to 40 s of virtual time.
func ParsePartitions(spec string) ([]simnet.Partition, error) {
	var out []simnet.Partition
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		sizes, when, ok := strings.Cut(part, "@")
		start, dur, ok2 := strings.Cut(when, "+")
		if !ok || !ok2 {
			return nil, fmt.Errorf("%w: --partition %q: want SIZES@START+DURATION, e.g. 2/3@10s+30s", ErrConfig, part)
		}
		var p simnet.Partition
		for _, s := range strings.Split(sizes, "/") {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("%w: --partition %q: group size %q", ErrConfig, part, s)
			}
			p.Groups = append(p.Groups, n)
		}
		var err error
		if p.From, err = time.ParseDuration(start); err != nil {
			return nil, fmt.Errorf("%w: --partition %q: %v", ErrConfig, part, err)
		}
		if p.For, err = time.ParseDuration(dur); err != nil {
			return nil, fmt.Errorf("%w: --partition %q: %v", ErrConfig, part, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// ParseLags reads --lag: comma-separated SIGNER=DURATION (signers counted
// from 1), e.g. 3=2s,5=500ms: signer 3's node sees the ledger and the
// source 2 s late, signer 5's 500 ms late.
func ParseLags(spec string) (map[int]time.Duration, error) {
	out := map[int]time.Duration{}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		i, err := strconv.Atoi(k)
		if !ok || err != nil {
			return nil, fmt.Errorf("%w: --lag %q: want SIGNER=DURATION, e.g. 3=2s", ErrConfig, part)
		}
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("%w: --lag %q: bad duration", ErrConfig, part)
		}
		out[i] = d
	}
	return out, nil
}
