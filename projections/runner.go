package projections

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/bridgelog/bridgelog/topics"
)

// Option configures a [Runner].
type Option func(*config)

type config struct {
	catalog     *topics.Catalog
	policy      topics.Policy
	metrics     Metrics
	logger      *slog.Logger
	limits      topics.Limits
	batchSize   int
	commitEvery int
	readChunk   int
	poll        time.Duration
	progress    func(Progress)
	stopAt      map[tp]int64
	cacheMax    int
	// rebuilder makes the runner's [Rebuilder]; rebuilderSet: given by
	// [WithRebuilder], else the default one.
	rebuilder    func() Rebuilder
	rebuilderSet bool
}

func (c *config) setDefaults() {
	if c.catalog == nil {
		c.catalog = topics.DefaultCatalog()
	}
	if c.metrics == nil {
		c.metrics = NopMetrics{}
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	if c.batchSize <= 0 {
		c.batchSize = 2500
	}
	if c.commitEvery <= 0 {
		c.commitEvery = 50000
	}
	if c.readChunk <= 0 {
		c.readChunk = 4096
	}
	if c.poll <= 0 {
		c.poll = 200 * time.Millisecond
	}
	if c.cacheMax <= 0 {
		c.cacheMax = DefaultDedupCacheKeys
	}
	if !c.rebuilderSet {
		c.rebuilder = defaultRebuilder()
	}
}

// DefaultDedupCacheKeys is how many source keys the dedup judge's key
// cache holds at most unless [WithDedupCacheKeys] says otherwise.
const DefaultDedupCacheKeys = 4 << 20

// WithDedupCacheKeys bounds the dedup judge's key cache (default
// [DefaultDedupCacheKeys]). A catch-up from zero with more records than
// the bound cannot rebuild processed_events fast (see [NewFastRebuild]):
// it folds the table through the store's engine instead, several times
// slower. A higher bound costs memory: a rebuild from zero peaks at about
// 240 bytes an event in all (BENCHMARKS.md), and a runner that started on
// an empty store keeps up to the bound of keys for as long as it runs.
func WithDedupCacheKeys(n int) Option { return func(cfg *config) { cfg.cacheMax = n } }

// WithCatalog sets the catalog envelopes are checked against (default
// [topics.DefaultCatalog]).
func WithCatalog(c *topics.Catalog) Option { return func(cfg *config) { cfg.catalog = c } }

// WithPolicy sets what to do with an envelope the catalog refuses or that
// does not decode: [topics.Reject] (default) stops with an error naming its
// position; [topics.Skip] passes over it and counts it.
func WithPolicy(p topics.Policy) Option { return func(cfg *config) { cfg.policy = p } }

// WithMetrics sets the metrics sink (default [NopMetrics]).
func WithMetrics(m Metrics) Option { return func(cfg *config) { cfg.metrics = m } }

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(cfg *config) { cfg.logger = l } }

// WithBatchSize sets how many events one transaction folds (default 2500;
// larger batches are a little faster and hold more memory).
func WithBatchSize(n int) Option { return func(cfg *config) { cfg.batchSize = n } }

// WithCommitEvery sets how many records one transaction may span, across
// batches (default 50000). A transaction commits earlier whenever the
// runner has drained the log.
func WithCommitEvery(n int) Option { return func(cfg *config) { cfg.commitEvery = n } }

// WithPollInterval sets how often [Runner.Follow] looks for new events
// when it is caught up (default 200ms).
func WithPollInterval(d time.Duration) Option { return func(cfg *config) { cfg.poll = d } }

// WithProgress receives progress after every committed batch.
func WithProgress(f func(Progress)) Option { return func(cfg *config) { cfg.progress = f } }

// WithStopAt makes catch-ups stop at the given offsets (per topic, one per
// partition) instead of the log's end: verify rebuilds to exactly the
// point the live store had reached.
func WithStopAt(ends map[string][]int64) Option {
	return func(cfg *config) {
		cfg.stopAt = map[tp]int64{}
		for topic, offs := range ends {
			for p, off := range offs {
				cfg.stopAt[tp{topic, int32(p)}] = off
			}
		}
	}
}

// Progress reports a catch-up's advance.
type Progress struct {
	Done      int64 // records folded in this catch-up (maybe not yet committed)
	Committed int64 // records whose folding is committed
	Total     int64 // records between the start checkpoints and the end
}

// Summary is what one catch-up did.
type Summary struct {
	Records    int64            // records read
	Skipped    int64            // envelopes passed over (Skip policy)
	First      int64            // events judged First
	Duplicates int64            // identical repeats of a source key
	Conflicts  int64            // different content under a known source key
	Applied    map[string]int64 // First events folded, per projection@version
	Switched   []string         // versions that went live in this catch-up
}

// Add adds o's counts, its applied events and its switched versions to s
// (one catch-up folded in parts).
func (s *Summary) Add(o Summary) {
	s.Records += o.Records
	s.Skipped += o.Skipped
	s.First += o.First
	s.Duplicates += o.Duplicates
	s.Conflicts += o.Conflicts
	for k, n := range o.Applied {
		if s.Applied == nil {
			s.Applied = map[string]int64{}
		}
		s.Applied[k] += n
	}
	s.Switched = append(s.Switched, o.Switched...)
}

// state is one projection version the runner drives.
type state struct {
	p       Projection
	topics  map[string]bool // nil: every topic (the dedup projection)
	status  string
	cp      checkpoint
	folder  SessionFolder
	session Session // this catch-up's, when folder is set
	// everyVerdict: the projection folds duplicates and conflicts as
	// well (see [EveryVerdict]).
	everyVerdict bool
}

func (s *state) label() string { return fmt.Sprintf("%s@v%d", s.p.Name(), s.p.Version()) }

func (s *state) reads(topic string) bool { return s.topics == nil || s.topics[topic] }

// Runner catches projections up with the log, one transaction per batch
// with the checkpoints inside it, and switches versions. It is not safe for
// concurrent use; run one Runner per store.
type Runner struct {
	log    topics.Log
	store  Store
	cfg    config
	dedup  ProcessedEvents
	judge  *state
	states []*state // the other projections, in registration order
	read   []string // topics read, sorted
	cache  *dedupCache
	// rebuild loads projections whose tables are empty (see [Rebuilder]).
	rebuild Rebuilder
	// sameLog: partitions this runner has checked against the log once
	// (see checkSameLog).
	sameLog map[tp]bool
}

// Errors of runner set-up.
var (
	ErrBadProjection = errors.New("invalid projection")
	ErrStoreNewer    = errors.New("store has a newer projection version than this binary")
)

// NewRunner prepares the store for ps (plus the built-in processed_events
// projection, which must not be in ps): it creates missing tables,
// registers versions and loads checkpoints. A projection whose Version is
// higher than the store's live one is created beside it in state
// "building" and goes live when a catch-up has brought it level; if the
// old version is in ps too, it keeps being updated until then.
func NewRunner(ctx context.Context, lg topics.Log, st Store, ps []Projection, opts ...Option) (*Runner, error) {
	r := &Runner{log: lg, store: st, sameLog: map[tp]bool{}}
	for _, o := range opts {
		o(&r.cfg)
	}
	r.cfg.setDefaults()
	if err := validate(ps); err != nil {
		return nil, err
	}
	tx, err := st.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	recorded, err := Versions(ctx, tx)
	if err != nil {
		return nil, fmt.Errorf("store %s: read %s: %w", st.Where(), versionsTable, err)
	}
	all := append([]Projection{r.dedup}, ps...)
	r.rebuild = &inPlace{}
	if r.cfg.rebuilder != nil {
		r.rebuild = r.cfg.rebuilder()
	}
	r.rebuild.attach(r, all)
	running, err := r.plan(ctx, tx, all, recorded)
	if err != nil {
		return nil, err
	}
	readSet := map[string]bool{}
	for _, s := range running {
		if s.cp, err = loadCheckpoint(ctx, tx, s.p.Name(), s.p.Version()); err != nil {
			return nil, fmt.Errorf("store %s: load checkpoint of %s: %w", st.Where(), s.label(), err)
		}
		if s.p.Name() == ProcessedEventsName {
			r.judge = s
			continue
		}
		r.states = append(r.states, s)
		for t := range s.topics {
			readSet[t] = true
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	for t := range readSet {
		if _, err := topics.Spec(t); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadProjection, err)
		}
		r.read = append(r.read, t)
	}
	sort.Strings(r.read)
	// A judge starting from nothing knows every key it will ever see, so a
	// rebuild needs no lookup for new keys.
	r.cache = newDedupCache(len(r.judge.cp) == 0, r.cfg.cacheMax)
	return r, nil
}

func validate(ps []Projection) error {
	seen := map[string]bool{}
	tables := map[string]string{}
	for _, p := range ps {
		if p == nil || p.Name() == "" || p.Version() < 1 {
			return fmt.Errorf("%w: %T needs a name and a version >= 1", ErrBadProjection, p)
		}
		if p.Name() == ProcessedEventsName {
			return fmt.Errorf("%w: %s is built in; do not register it", ErrBadProjection, ProcessedEventsName)
		}
		id := fmt.Sprintf("%s@v%d", p.Name(), p.Version())
		if seen[id] {
			return fmt.Errorf("%w: %s registered twice", ErrBadProjection, id)
		}
		seen[id] = true
		if len(p.Topics()) == 0 {
			return fmt.Errorf("%w: %s reads no topic", ErrBadProjection, id)
		}
		suffix := fmt.Sprintf("_v%d", p.Version())
		for _, t := range p.Tables() {
			if err := t.Validate(); err != nil {
				return fmt.Errorf("%w: %s: %v", ErrBadProjection, id, err)
			}
			if !strings.HasSuffix(t.Name, suffix) {
				return fmt.Errorf("%w: %s: table %s must end in %s (use Versioned)", ErrBadProjection, id, t.Name, suffix)
			}
			if other, dup := tables[t.Name]; dup {
				return fmt.Errorf("%w: table %s declared by %s and %s", ErrBadProjection, t.Name, other, id)
			}
			tables[t.Name] = id
		}
	}
	return nil
}

// Follow keeps the projections caught up until ctx ends (live mode).
func (r *Runner) Follow(ctx context.Context, each func(Summary)) error {
	for {
		sum, err := r.CatchUp(ctx)
		if errors.Is(err, ErrCheckpointMoved) {
			// Another runner won a commit; checkpoints are reloaded, go on
			// from them after a pause.
			sum, err = Summary{}, nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if each != nil && sum.Records > 0 {
			each(sum)
		}
		if sum.Records > 0 {
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(r.cfg.poll):
		}
	}
}
