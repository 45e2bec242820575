package projections

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/bridgelog/bridgelog/topics"
	"golang.org/x/sync/errgroup"
)

// GCPercent is the collector target (as GOGC) the bridgelog binary's
// rebuilding commands (replay, verify, project, demo) run with unless GOGC
// is set, and the rebuild benchmarks with it: the heap may grow by 70% of
// what is live between collections, not Go's 100%. A rebuild's memory is
// mostly live (key cache, slabs, stages) and, on the VMs measured, memory
// taken anew costs more than collecting: a rebuild of a million events
// peaks about 35 MB lower and is no slower (BENCHMARKS.md). The Runner
// does not set it: it is the process's.
const GCPercent = 70

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
}

// DefaultDedupCacheKeys is how many source keys the dedup judge's key
// cache holds at most unless [WithDedupCacheKeys] says otherwise.
const DefaultDedupCacheKeys = 4 << 20

// WithDedupCacheKeys bounds the dedup judge's key cache (default
// [DefaultDedupCacheKeys]). A catch-up from zero with more records than
// the bound cannot load processed_events from zero (without its index,
// in bulk where the store can): it folds the table through the store's
// engine and its source_hash index instead, several times slower. A
// higher bound costs memory: a rebuild from zero peaks at about 240 bytes
// an event in all (BENCHMARKS.md), and a runner that started on an empty
// store keeps up to the bound of keys for as long as it runs.
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
	// indexless: a from-zero catch-up dropped the tables' secondary
	// indexes and has not built them again yet.
	indexless bool
	// staged: this catch-up loads the tables from zero through the
	// store's [BulkLoader], which builds them with their indexes.
	staged bool
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
	pipe   *foldPipe // during a catch-up whose folds run beside the judge
	// recycle: every projection is [BatchScoped], so a catch-up may reuse
	// its read and decode memory batch after batch.
	recycle bool
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
	r.recycle = true
	for _, p := range all {
		if _, ok := p.(BatchScoped); !ok {
			r.recycle = false
			r.cfg.logger.Info("catch-ups read the log into fresh memory: a projection does not declare that it keeps nothing past a batch",
				"projection", p.Name(), "version", p.Version())
		}
	}
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

// plan decides which versions run, creating tables and registering
// versions as needed.
func (r *Runner) plan(ctx context.Context, tx Tx, all []Projection, recorded []VersionState) ([]*state, error) {
	live := map[string]int{}
	known := map[string]string{} // name@v → state
	for _, v := range recorded {
		known[fmt.Sprintf("%s@v%d", v.Projection, v.Version)] = v.State
		if v.State == StateLive {
			live[v.Projection] = v.Version
		}
	}
	target := map[string]int{}
	for _, p := range all {
		target[p.Name()] = max(target[p.Name()], p.Version())
	}
	var out []*state
	for _, p := range all {
		name, v := p.Name(), p.Version()
		L, T := live[name], target[name]
		if L > T {
			return nil, fmt.Errorf("%w: %s is live at v%d in %s, this binary has up to v%d",
				ErrStoreNewer, name, L, r.store.Where(), T)
		}
		s := &state{p: p}
		if ts := p.Topics(); ts != nil {
			s.topics = map[string]bool{}
			for _, t := range ts {
				s.topics[t] = true
			}
		}
		if f, ok := p.(SessionFolder); ok {
			s.folder = f
		}
		_, s.everyVerdict = p.(EveryVerdict)
		switch {
		case v == T && (L == 0 || L == v):
			s.status = StateLive
		case v == T:
			s.status = StateBuilding
		case v == L:
			s.status = StateLive // the old version keeps serving until the new one is level
		default:
			continue // an older, retired version: its code is not run
		}
		if err := createTables(ctx, tx, p); err != nil {
			return nil, fmt.Errorf("store %s: create tables of %s: %w", r.store.Where(), s.label(), err)
		}
		id := s.label()
		if known[id] != s.status {
			if err := setVersionState(ctx, tx, name, v, s.status); err != nil {
				return nil, err
			}
			if s.status == StateBuilding {
				r.cfg.logger.Info("projection version building beside the live one",
					"projection", name, "version", v, "live_version", L)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

func createTables(ctx context.Context, tx Tx, p Projection) error {
	for _, t := range p.Tables() {
		for _, q := range t.DDL(tx.Dialect()) {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO `+tablesTable+` (projection, version, table_name) VALUES (?, ?, ?)
			ON CONFLICT (projection, version, table_name) DO NOTHING`, p.Name(), p.Version(), t.Name); err != nil {
			return err
		}
	}
	return nil
}

func dropTables(ctx context.Context, tx Tx, p Projection) error {
	for _, t := range p.Tables() {
		if _, err := tx.Exec(ctx, `DROP TABLE IF EXISTS `+t.Name); err != nil {
			return err
		}
	}
	return nil
}

// Projections lists the projection versions the runner drives, the
// built-in processed_events first.
func (r *Runner) Projections() []Projection {
	var out []Projection
	for _, s := range r.all() {
		out = append(out, s.p)
	}
	return out
}

// Rebuild empties the named projections (every one, with processed_events,
// when names is empty) so that the next catch-up rebuilds them from offset
// 0. Only the versions this binary runs are touched.
func (r *Runner) Rebuild(ctx context.Context, names ...string) error {
	targets, err := r.select_(names, true)
	if err != nil {
		return err
	}
	tx, err := r.store.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, s := range targets {
		if err := dropTables(ctx, tx, s.p); err != nil {
			return err
		}
		if err := createTables(ctx, tx, s.p); err != nil {
			return err
		}
		if err := deleteCheckpoint(ctx, tx, s.p.Name(), s.p.Version()); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	for _, s := range targets {
		s.cp = checkpoint{}
		if s == r.judge {
			r.cache = newDedupCache(true, r.cfg.cacheMax)
		}
		r.cfg.logger.Debug("projection emptied for rebuild", "projection", s.p.Name(), "version", s.p.Version())
	}
	return nil
}

// Rewind moves the named projections' checkpoints back to offset (in every
// partition), so the next catch-up folds those events again over the
// existing rows. Only projections whose Apply is idempotent for a repeated
// First event may be rewound (all built-in ones are); processed_events
// cannot be (use Rebuild), as its duplicate counts would be counted twice.
func (r *Runner) Rewind(ctx context.Context, offset int64, names ...string) error {
	targets, err := r.select_(names, false)
	if err != nil {
		return err
	}
	tx, err := r.store.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	next := map[*state]checkpoint{}
	for _, s := range targets {
		cp := s.cp.clone()
		for _, t := range r.read {
			if !s.reads(t) {
				continue
			}
			ends, err := r.log.EndOffsets(ctx, t)
			if err != nil {
				return err
			}
			for p := range ends {
				k := tp{t, int32(p)}
				if cur, ok := cp[k]; !ok || cur > offset {
					cp[k] = offset
					if err := saveCheckpoint(ctx, tx, s.p.Name(), s.p.Version(), k, offset); err != nil {
						return err
					}
				}
			}
		}
		next[s] = cp
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	for s, cp := range next {
		s.cp = cp
		r.cfg.logger.Debug("projection rewound", "projection", s.p.Name(), "version", s.p.Version(), "offset", offset)
	}
	return nil
}

// select_ resolves projection names; empty means all (with the judge only
// when withJudge).
func (r *Runner) select_(names []string, withJudge bool) ([]*state, error) {
	if len(names) == 0 {
		out := append([]*state{}, r.states...)
		if withJudge {
			out = append([]*state{r.judge}, out...)
		}
		return out, nil
	}
	var out []*state
	for _, n := range names {
		found := false
		if n == ProcessedEventsName {
			if !withJudge {
				return nil, fmt.Errorf("%w: %s cannot be rewound, only rebuilt", ErrBadProjection, n)
			}
			out = append(out, r.judge)
			continue
		}
		for _, s := range r.states {
			if s.p.Name() == n {
				out = append(out, s)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("%w: no projection named %q (have %s)", ErrBadProjection, n, strings.Join(r.names(), ", "))
		}
	}
	return out, nil
}

// all lists every projection version the runner drives, processed_events
// first.
func (r *Runner) all() []*state { return append([]*state{r.judge}, r.states...) }

func (r *Runner) names() []string {
	out := []string{ProcessedEventsName}
	for _, s := range r.states {
		out = append(out, s.p.Name())
	}
	return out
}

// batch is a run of decoded events with the offsets it brings each
// partition to.
type batch struct {
	evs     []*Event
	bufs    *readArena // what evs were read into, when recycled
	next    map[tp]int64
	records int64
	skipped int64
}

// CatchUp folds every event between the checkpoints and the log's end (as
// it was when CatchUp started), then switches building versions that are
// level to live.
func (r *Runner) CatchUp(ctx context.Context) (Summary, error) {
	sum := Summary{Applied: map[string]int64{}}
	from, end, total, err := r.bounds(ctx)
	if err != nil {
		return sum, err
	}
	if err := r.prepare(ctx, end, total); err != nil {
		return sum, err
	}
	defer r.endSessions()
	if total > 0 {
		g, gctx := errgroup.WithContext(ctx)
		batches := make(chan *batch, 1)
		g.Go(func() error {
			defer close(batches)
			return r.readLog(gctx, from, end, batches)
		})
		g.Go(func() (err error) {
			if r.pipelined() {
				r.cfg.logger.Debug("projections fold beside the dedup judge", "projections", r.names())
				r.pipe = newFoldPipe()
				defer func() {
					r.pipe.stop()
					r.pipe = nil
					// A fold or flush may fail after its batch committed
					// (the last commit's flush always runs after it): no
					// transaction is left to roll back, so the load is
					// failed here, whatever failed.
					if err != nil {
						r.store.(BulkLoader).Abandon(err)
					}
				}()
			}
			var done, committed int64
			var p *pending
			for b := range batches {
				if p == nil {
					var err error
					if p, err = r.begin(gctx); err != nil {
						return err
					}
				}
				if err := r.apply(gctx, p, b); err != nil {
					r.abort(p)
					return err
				}
				done += b.records
				// One transaction spans batches up to commitEvery records:
				// every commit rewrites the pages it dirtied, and random
				// index pages are dirtied again by every batch. Nothing
				// queued means the log is drained: commit now, so live
				// mode stays prompt.
				if p.sum.Records >= int64(r.cfg.commitEvery) || len(batches) == 0 {
					if err := r.commit(gctx, p, &sum); err != nil {
						return err
					}
					p, committed = nil, done
				}
				if r.cfg.progress != nil {
					r.cfg.progress(Progress{Done: done, Total: total, Committed: committed})
				}
			}
			if p != nil {
				if err := r.commit(gctx, p, &sum); err != nil {
					return err
				}
				if r.cfg.progress != nil {
					r.cfg.progress(Progress{Done: done, Total: total, Committed: done})
				}
			}
			return r.settle() // the last commit's flush
		})
		if err := g.Wait(); err != nil {
			return sum, err
		}
	}
	r.endSessions() // their memory is not needed to build indexes
	if len(r.indexless()) > 0 {
		// Nor is the dedup key cache (32 MB a million keys): once the load
		// is done the table has its source_hash index, through which any
		// later batch finds its keys, as on a store that was not empty.
		r.cache.drop()
		// Hand the load's garbage back before the tables are written or
		// SQLite sorts the indexes: the two would otherwise add up in the
		// peak resident set.
		debug.FreeOSMemory()
	}
	if err := r.materialize(ctx); err != nil {
		return sum, err
	}
	if err := r.buildIndexes(ctx, r.indexless()); err != nil {
		return sum, err
	}
	if err := r.switchLevel(ctx, end, &sum); err != nil {
		return sum, err
	}
	return sum, nil
}

// bounds computes, per partition, where reading starts (the lowest
// checkpoint of any projection reading it) and ends.
func (r *Runner) bounds(ctx context.Context) (from, end map[tp]int64, total int64, err error) {
	from, end = map[tp]int64{}, map[tp]int64{}
	for _, t := range r.read {
		ends, err := r.log.EndOffsets(ctx, t)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("end offsets of %s: %w", t, err)
		}
		if err := r.checkSameLog(ctx, t, ends); err != nil {
			return nil, nil, 0, err
		}
		for p, e := range ends {
			k := tp{t, int32(p)}
			if r.cfg.stopAt != nil {
				e = r.cfg.stopAt[k]
			}
			start := e
			for _, s := range r.all() {
				if s.reads(t) {
					start = min(start, s.cp[k])
				}
			}
			end[k], from[k] = e, start
			if e > start {
				total += e - start
			}
		}
	}
	return from, end, total, nil
}

// readLog reads and decodes [from, end) of every partition, round-robin,
// into batches. It runs beside apply so decoding overlaps the store's work.
func (r *Runner) readLog(ctx context.Context, from, end map[tp]int64, out chan<- *batch) error {
	keys := make([]tp, 0, len(from))
	for k := range from {
		if end[k] > from[k] {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].topic < keys[j].topic || keys[i].topic == keys[j].topic && keys[i].part < keys[j].part
	})
	cursor := map[tp]int64{}
	for _, k := range keys {
		cursor[k] = from[k]
	}
	var decs [2]decodeScratch
	for i := range decs {
		decs[i].dec = topics.NewDecoder(r.cfg.limits)
		// A record's buffer stays with its batch until the batch is
		// folded: strings may alias it.
		decs[i].dec.AliasInput = true
	}
	// Batches share a pool of read buffers when the log reads into
	// buffers it is given and no projection keeps an event past its batch;
	// the pool ends with the catch-up.
	into, _ := r.log.(intoReader)
	var slabs *slabPool
	if into != nil && r.recycle {
		slabs = newSlabPool()
	}
	newBatch := func() *batch {
		b := &batch{next: map[tp]int64{}, evs: make([]*Event, 0, r.cfg.batchSize)}
		if slabs != nil {
			b.bufs = &readArena{pool: slabs}
		}
		return b
	}
	b := newBatch()
	read := func(k tp, max int) ([]topics.Record, error) {
		if slabs != nil {
			return into.ReadInto(ctx, k.topic, k.part, cursor[k], max, b.bufs.alloc)
		}
		return r.log.Read(ctx, k.topic, k.part, cursor[k], max)
	}
	send := func() error {
		if b.records == 0 {
			return nil
		}
		select {
		case out <- b:
		case <-ctx.Done():
			return ctx.Err()
		}
		b = newBatch()
		return nil
	}
	for len(keys) > 0 {
		live := keys[:0]
		for _, k := range keys {
			recs, err := read(k, min(r.cfg.readChunk, int(end[k]-cursor[k])))
			if err != nil {
				return fmt.Errorf("read %s: %w", pos(k.topic, k.part, cursor[k]), err)
			}
			if cut := sort.Search(len(recs), func(i int) bool { return recs[i].Offset >= end[k] }); cut < len(recs) {
				recs = recs[:cut]
			}
			evs, err := r.decodeChunk(&decs, recs, b.bufs)
			if err != nil {
				return err
			}
			for _, ev := range evs {
				b.records++
				if ev == nil {
					b.skipped++
				} else {
					b.evs = append(b.evs, ev)
				}
			}
			if len(recs) > 0 {
				cursor[k] = recs[len(recs)-1].Offset + 1
				b.next[k] = cursor[k]
			}
			// An empty read before end: Kafka offsets may end in a gap.
			if len(recs) > 0 && cursor[k] < end[k] {
				live = append(live, k)
			}
			if len(b.evs)+int(b.skipped) >= r.cfg.batchSize {
				if err := send(); err != nil {
					return err
				}
			}
		}
		keys = live
	}
	return send()
}

// decodeScratch is one decoding goroutine's decoder and hashing buffer.
type decodeScratch struct {
	dec  *topics.Decoder
	hash []byte
}

// decodeChunk decodes recs in order (nil for a record skipped by policy)
// and returns the error of the first record that fails. Decoding is the
// reading goroutine's largest cost; the second half of a large chunk is
// decoded on another goroutine, so the reader keeps ahead of the judge
// while the other stages leave a core idle.
func (r *Runner) decodeChunk(decs *[2]decodeScratch, recs []topics.Record, bufs *readArena) ([]*Event, error) {
	evs := make([]*Event, len(recs))
	var store []Event
	if bufs != nil {
		store = bufs.newEvents(len(recs))
	} else {
		store = make([]Event, len(recs))
	}
	run := func(d *decodeScratch, lo, hi int) error {
		for i := lo; i < hi; i++ {
			ev, err := r.decode(d.dec, &recs[i], &d.hash, &store[i])
			if err != nil {
				return err
			}
			evs[i] = ev
		}
		return nil
	}
	half := len(recs)
	if len(recs) >= minSplitDecode {
		half = len(recs) / 2
	}
	var wg sync.WaitGroup
	var hiErr error
	if half < len(recs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hiErr = run(&decs[1], half, len(recs))
		}()
	}
	loErr := run(&decs[0], 0, half)
	wg.Wait()
	if loErr != nil {
		return nil, loErr
	}
	return evs, hiErr
}

// minSplitDecode is the smallest chunk decoded on two goroutines.
const minSplitDecode = 256

// decode turns a record into ev (zero), or returns nil for one skipped
// by policy.
func (r *Runner) decode(dec *topics.Decoder, rec *topics.Record, hashBuf *[]byte, ev *Event) (*Event, error) {
	ev.Position = rec.Position()
	err := dec.Decode(rec.Value, &ev.Envelope)
	reason := "malformed"
	if err == nil && ev.Envelope.SourceKey == "" {
		err = fmt.Errorf("%w: event %s has no source key", topics.ErrMalformed, ev.Envelope.ID)
	}
	if err == nil {
		if err = r.cfg.catalog.Check(&ev.Envelope); err != nil {
			reason = "unknown_type"
			if errors.Is(err, topics.ErrSchemaTooNew) {
				reason = "schema_too_new"
			}
		}
	}
	if err == nil {
		ev.Body, err = DecodeBody(&ev.Envelope)
	}
	if err != nil {
		if r.cfg.policy == topics.Skip {
			r.cfg.metrics.Skipped(reason, 1)
			r.cfg.logger.Warn("envelope skipped", "position", FormatPosition(ev.Position), "reason", reason, "err", err)
			return nil, nil
		}
		return nil, &DecodeError{Position: ev.Position, Err: err}
	}
	buf := append((*hashBuf)[:0], ev.Envelope.Type...)
	buf = append(buf, 0)
	buf = append(buf, ev.Envelope.Payload...)
	ev.ContentHash = sha256.Sum256(buf)
	*hashBuf = buf
	ev.derive()
	return ev, nil
}

// DecodeError names the record an envelope could not be read from.
type DecodeError struct {
	Position topics.Position
	Err      error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("record %s (topic %s, partition %d, offset %d): %v",
		FormatPosition(e.Position), e.Position.Topic, e.Position.Partition, e.Position.Offset, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// pending is an open transaction spanning one or more batches: rows,
// checkpoints and counts become visible together at commit.
type pending struct {
	tx      StoreTx
	moved   map[*state]checkpoint
	sum     Summary
	applied map[*state]int
	dups    int
	confl   int
}

func (r *Runner) begin(ctx context.Context) (*pending, error) {
	tx, err := r.store.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return &pending{tx: tx, moved: map[*state]checkpoint{}, applied: map[*state]int{}}, nil
}

// abort rolls back; the dedup cache may hold keys of the lost batches.
func (r *Runner) abort(p *pending) {
	r.settle() // no fold may still use the transaction
	p.tx.Rollback()
	r.cache.drop()
}

// apply folds one batch into the open transaction.
func (r *Runner) apply(ctx context.Context, p *pending, b *batch) error {
	// Events every projection has already folded (a lower checkpoint of
	// another one made the reader start earlier) are dropped here. The
	// committed checkpoints suffice: batches of one catch-up come in
	// offset order.
	all := r.all()
	filters := make([]pendingFilter, len(all))
	for i, s := range all {
		filters[i].s = s
	}
	evs := b.evs[:0:0]
	for _, ev := range b.evs {
		for i := range filters {
			if filters[i].admits(ev) {
				evs = append(evs, ev)
				break
			}
		}
	}
	tx := p.tx
	js, err := r.dedup.judge(ctx, tx, evs, r.judge.cp, r.cache)
	if err != nil {
		r.cfg.metrics.Error(r.judge.label())
		return fmt.Errorf("%s: %w", r.judge.label(), err)
	}
	// Once folded, the batch's events are done with: its read buffers go
	// back to the pool (a failed batch leaves them to the collector).
	if err := r.beside(func() error {
		if err := r.fold(ctx, p, evs); err != nil {
			return err
		}
		b.bufs.release()
		return nil
	}); err != nil {
		return err
	}
	for _, s := range all {
		for k, next := range b.next {
			if !s.reads(k.topic) || next <= s.cp[k] {
				continue
			}
			if p.moved[s] == nil {
				p.moved[s] = checkpoint{}
			}
			p.moved[s][k] = max(p.moved[s][k], next)
		}
	}
	p.sum.Records += b.records
	p.sum.Skipped += b.skipped
	p.sum.First += int64(js.first)
	p.sum.Duplicates += int64(js.duplicates)
	p.sum.Conflicts += int64(js.conflicts)
	p.dups += js.duplicates
	p.confl += js.conflicts
	return nil
}

// pendingFilter says which events a projection has not folded yet: those
// of topics it reads at or past its checkpoint. A batch holds long runs of
// one partition, so it looks the checkpoint up once per run, not once per
// event (two map look-ups hashing the topic, for every event and state).
type pendingFilter struct {
	s     *state
	topic string
	part  int32
	known bool // topic and part are the run's
	reads bool
	from  int64
}

func (f *pendingFilter) admits(ev *Event) bool {
	p := ev.Position
	if !f.known || p.Partition != f.part || p.Topic != f.topic {
		f.topic, f.part, f.known = p.Topic, p.Partition, true
		f.reads = f.s.reads(p.Topic)
		f.from = f.s.cp[tp{p.Topic, p.Partition}]
	}
	return f.reads && p.Offset >= f.from
}

// fold applies a judged batch to every projection but the dedup table.
func (r *Runner) fold(ctx context.Context, p *pending, evs []*Event) error {
	var mine []*Event
	for _, s := range r.states {
		mine = mine[:0]
		f := pendingFilter{s: s}
		for _, ev := range evs {
			if (ev.Verdict == First || s.everyVerdict) && f.admits(ev) {
				mine = append(mine, ev)
			}
		}
		if len(mine) == 0 {
			continue
		}
		var err error
		if s.session != nil {
			err = s.session.ApplyBatch(ctx, p.tx, mine)
		} else {
			for _, ev := range mine {
				if err = s.p.Apply(ctx, p.tx, ev); err != nil {
					err = fmt.Errorf("event %s (%s) at %s: %w", ev.Envelope.ID, ev.Envelope.Type, FormatPosition(ev.Position), err)
					break
				}
			}
		}
		if err != nil {
			r.cfg.metrics.Error(s.label())
			return fmt.Errorf("projection %s: %w", s.label(), err)
		}
		p.applied[s] += len(mine)
	}
	return nil
}

// pipelined says whether folds may run beside the judge (see [foldPipe]):
// only when every table of the catch-up is staged, so neither side runs
// SQL on the shared transaction, and every projection folds in sessions.
func (r *Runner) pipelined() bool {
	if !r.judge.staged {
		return false
	}
	for _, s := range r.states {
		if !s.staged || s.session == nil {
			return false
		}
	}
	return true
}

// beside runs job on the folds' goroutine when the load is pipelined
// (returning an earlier job's error, if any), else now.
func (r *Runner) beside(job func() error) error {
	if r.pipe != nil {
		return r.pipe.submit(job)
	}
	return job()
}

// settle waits for the folds submitted in this transaction.
func (r *Runner) settle() error {
	if r.pipe == nil {
		return nil
	}
	return r.pipe.wait()
}

// commit writes the checkpoints into the transaction and commits it.
func (r *Runner) commit(ctx context.Context, p *pending, sum *Summary) error {
	if err := r.settle(); err != nil {
		r.abort(p)
		return err
	}
	flush := func() error {
		for _, s := range r.states {
			if s.session == nil {
				continue
			}
			if err := s.session.Flush(ctx, p.tx); err != nil {
				r.cfg.metrics.Error(s.label())
				return fmt.Errorf("projection %s: %w", s.label(), err)
			}
		}
		return nil
	}
	// Pipelined, every table is staged: the sessions' rows go to their
	// stages, not into this transaction, and nothing of the load counts
	// before the whole of it is materialized. So the folds' goroutine
	// writes them while this one commits the checkpoints and judges the
	// next batch; a failure stops the load at the next submit or wait.
	if err := r.beside(flush); err != nil {
		r.abort(p)
		return err
	}
	for s, cp := range p.moved {
		for k, next := range cp {
			prev, had := s.cp[k]
			if err := advanceCheckpoint(ctx, p.tx, s.p.Name(), s.p.Version(), k, prev, had, next); err != nil {
				r.abort(p)
				if errors.Is(err, ErrCheckpointMoved) {
					r.cfg.metrics.Error(s.label())
					r.cfg.logger.Warn("another runner committed to this store; batch rolled back, checkpoints reloaded",
						"projection", s.p.Name(), "version", s.p.Version(), "store", r.store.Where(), "err", err)
					if rerr := r.reloadCheckpoints(ctx); rerr != nil {
						return errors.Join(err, rerr)
					}
					return err
				}
				return fmt.Errorf("checkpoint %s: %w", s.label(), err)
			}
		}
	}
	if err := p.tx.Commit(); err != nil {
		r.cache.drop()
		return err
	}
	for s, cp := range p.moved {
		for k, v := range cp {
			s.cp[k] = v
		}
	}
	sum.Add(p.sum)
	for s, n := range p.applied {
		sum.Applied[s.label()] += int64(n)
		r.cfg.metrics.Applied(s.p.Name(), n)
	}
	r.cfg.metrics.Duplicate(p.dups)
	r.cfg.metrics.Conflict(p.confl)
	r.cfg.logger.Debug("batch committed", "records", p.sum.Records, "first", p.sum.First,
		"duplicates", p.dups, "conflicts", p.confl, "skipped", p.sum.Skipped)
	return nil
}

// reloadCheckpoints reads every checkpoint back from the store. If
// another runner has moved the dedup table's, the key cache no longer
// knows every key in it and is dropped.
func (r *Runner) reloadCheckpoints(ctx context.Context) error {
	committed, err := r.committedCheckpoints(ctx)
	if err != nil {
		return err
	}
	for s, cp := range committed {
		if s == r.judge && !maps.Equal(cp, s.cp) {
			r.cache.drop()
		}
		s.cp = cp
	}
	return nil
}

// committedCheckpoints reads every projection's checkpoint from the store.
func (r *Runner) committedCheckpoints(ctx context.Context) (map[*state]checkpoint, error) {
	tx, err := r.store.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	committed := map[*state]checkpoint{}
	for _, s := range r.all() {
		cp, err := loadCheckpoint(ctx, tx, s.p.Name(), s.p.Version())
		if err != nil {
			return nil, fmt.Errorf("store %s: checkpoint of %s: %w", r.store.Where(), s.label(), err)
		}
		committed[s] = cp
	}
	return committed, nil
}

// prepare starts the catch-up's sessions. A projection whose tables are
// empty (no checkpoint yet) is loaded from zero: its secondary indexes are
// dropped now and built once at the end (see [SessionFolder]). Only
// processed_events (when its key cache can hold every event) and
// projections with sessions can do without their indexes. An index-less
// projection that is not from zero any more (an earlier catch-up failed
// half-way) gets its indexes back first.
func (r *Runner) prepare(ctx context.Context, end map[tp]int64, total int64) error {
	// A projection loads from zero only when it has records to fold: one
	// whose topics are still empty keeps its (empty) indexes.
	empty := func(s *state) bool {
		if len(s.cp) > 0 {
			return false
		}
		for k, e := range end {
			if s.reads(k.topic) && e > 0 {
				return true
			}
		}
		return false
	}
	for _, s := range r.all() {
		if empty(s) {
			// Tables look empty: make sure no other runner on this store
			// has filled them since, before dropping their indexes.
			if err := r.reloadCheckpoints(ctx); err != nil {
				return err
			}
			break
		}
	}
	if len(r.judge.cp) == 0 {
		// Nothing committed: the table is empty and the cache starts
		// afresh (an abort may have dropped it).
		r.cache = newDedupCache(true, r.cfg.cacheMax)
	}
	var drop, restore []*state
	for _, s := range r.all() {
		fromZero := empty(s)
		if s == r.judge {
			if fromZero && total > int64(r.cache.room()) {
				fromZero = false
				r.cfg.logger.Warn("processed_events not loaded from zero: more records than its key cache holds; "+
					"it folds through the store's engine and index, several times slower (raise the bound: --dedup-cache-keys)",
					"records", total, "cache_keys", r.cache.room())
			}
			if fromZero {
				r.cache.reserve(int(total))
			}
		} else {
			fromZero = fromZero && s.folder != nil
		}
		if s.folder != nil {
			s.session = s.folder.NewSession(fromZero)
		}
		if fromZero && !s.indexless {
			drop = append(drop, s)
		}
		if !fromZero && s.indexless {
			restore = append(restore, s)
		}
	}
	if err := r.buildIndexes(ctx, restore); err != nil {
		return err
	}
	if err := r.indexDDL(ctx, drop, Table.DropIndexDDL); err != nil {
		return err
	}
	for _, s := range drop {
		s.indexless = true
		r.cfg.logger.Debug("projection loading from zero without its indexes", "projection", s.p.Name(), "version", s.p.Version())
	}
	return r.stage(ctx, drop)
}

// stage hands the tables of from-zero loads to the store, if it can load
// them itself (see [BulkLoader]).
func (r *Runner) stage(ctx context.Context, fromZero []*state) error {
	bl, ok := r.store.(BulkLoader)
	if !ok || len(fromZero) == 0 {
		return nil
	}
	var tables []Table
	for _, s := range fromZero {
		tables = append(tables, s.p.Tables()...)
	}
	if err := bl.Stage(ctx, tables); err != nil {
		return fmt.Errorf("store %s: stage: %w", r.store.Where(), err)
	}
	for _, s := range fromZero {
		s.staged = true
		r.cfg.logger.Debug("projection loading from zero through the store's bulk loader", "projection", s.p.Name(), "version", s.p.Version())
	}
	return nil
}

// materialize has the store write the staged tables, indexes included.
func (r *Runner) materialize(ctx context.Context) error {
	var staged []*state
	for _, s := range r.all() {
		if s.staged {
			staged = append(staged, s)
		}
	}
	if len(staged) == 0 {
		return nil
	}
	start := time.Now()
	if err := r.store.(BulkLoader).Materialize(ctx); err != nil {
		for _, s := range staged {
			r.cfg.metrics.Error(s.label())
		}
		return fmt.Errorf("store %s: materialize: %w", r.store.Where(), err)
	}
	for _, s := range staged {
		s.staged, s.indexless = false, false
		r.cfg.logger.Debug("projection tables written with their indexes", "projection", s.p.Name(), "version", s.p.Version(), "took", time.Since(start))
	}
	return nil
}

func (r *Runner) endSessions() {
	for _, s := range r.states {
		s.session = nil
	}
}

// indexDDL runs ddl's statements for every table of states, in one
// transaction.
func (r *Runner) indexDDL(ctx context.Context, states []*state, ddl func(Table) []string) error {
	if len(states) == 0 {
		return nil
	}
	tx, err := r.store.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, s := range states {
		for _, t := range s.p.Tables() {
			for _, q := range ddl(t) {
				if _, err := tx.Exec(ctx, q); err != nil {
					return fmt.Errorf("store %s: %s of %s: %w", r.store.Where(), q, s.label(), err)
				}
			}
		}
	}
	return tx.Commit()
}

// indexless lists the projections whose secondary indexes prepare dropped.
func (r *Runner) indexless() []*state {
	var out []*state
	for _, s := range r.all() {
		if s.indexless {
			out = append(out, s)
		}
	}
	return out
}

// buildIndexes creates the secondary indexes of todo again.
func (r *Runner) buildIndexes(ctx context.Context, todo []*state) error {
	for _, s := range todo {
		start := time.Now()
		if err := r.indexDDL(ctx, []*state{s}, Table.IndexDDL); err != nil {
			return err
		}
		s.indexless = false
		r.cfg.logger.Debug("projection indexes built", "projection", s.p.Name(), "version", s.p.Version(), "took", time.Since(start))
	}
	return nil
}

// switchLevel makes every building version whose checkpoints reached end
// live, retiring the version it replaces.
func (r *Runner) switchLevel(ctx context.Context, end map[tp]int64, sum *Summary) error {
	for _, s := range r.all() {
		if s.status != StateBuilding {
			continue
		}
		level := true
		for k, e := range end {
			if s.reads(k.topic) && s.cp[k] < e {
				level = false
			}
		}
		if !level {
			continue
		}
		tx, err := r.store.Begin(ctx)
		if err != nil {
			return err
		}
		old, err := LiveVersion(ctx, tx, s.p.Name())
		if err != nil && !errors.Is(err, ErrNoLiveVersion) {
			tx.Rollback()
			return err
		}
		if old != 0 {
			if err := setVersionState(ctx, tx, s.p.Name(), old, StateRetired); err != nil {
				tx.Rollback()
				return err
			}
		}
		if err := setVersionState(ctx, tx, s.p.Name(), s.p.Version(), StateLive); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		s.status = StateLive
		// The replaced version stops here: its code may still be
		// registered, but readers have moved on.
		kept := r.states[:0]
		for _, o := range r.states {
			if !(o.p.Name() == s.p.Name() && o.p.Version() == old) {
				kept = append(kept, o)
			}
		}
		r.states = kept
		sum.Switched = append(sum.Switched, s.label())
		r.cfg.logger.Info("projection version switched", "projection", s.p.Name(),
			"version", s.p.Version(), "retired_version", old)
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

// Digests computes the digest of every projection the runner drives.
func (r *Runner) Digests(ctx context.Context) ([]Digest, error) {
	tx, err := r.store.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var out []Digest
	for _, p := range r.Projections() {
		d, err := DigestOf(ctx, tx, p)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// Checkpoints returns, per topic, the next offset per partition that every
// projection the runner drives has committed (the lowest of them). They
// are read from the store, so commits of other runners on it count too:
// an idle runner can watch busy ones.
func (r *Runner) Checkpoints(ctx context.Context) (map[string][]int64, error) {
	committed, err := r.committedCheckpoints(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string][]int64{}
	for _, t := range r.read {
		ends, err := r.log.EndOffsets(ctx, t)
		if err != nil {
			return nil, err
		}
		offs := make([]int64, len(ends))
		for p := range ends {
			k := tp{t, int32(p)}
			low := int64(-1)
			for s, cp := range committed {
				if s.reads(t) && (low < 0 || cp[k] < low) {
					low = cp[k]
				}
			}
			offs[p] = max(low, 0)
		}
		out[t] = offs
	}
	return out, nil
}
