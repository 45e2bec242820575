package analytics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"syscall"
	"time"

	"github.com/bridgelog/bridgelog/topics"
)

// Metrics counts what the sink does; adapters/metrics exports them.
type Metrics interface {
	// Sunk counts records written to the warehouse, per topic.
	Sunk(topic string, n int)
	// Undecodable counts records written with a decode error.
	Undecodable(topic string, n int)
	// InsertFailed counts failed warehouse writes.
	InsertFailed(table string)
}

// NopMetrics counts nothing.
type NopMetrics struct{}

func (NopMetrics) Sunk(string, int)        {}
func (NopMetrics) Undecodable(string, int) {}
func (NopMetrics) InsertFailed(string)     {}

// DefaultBatch is how many records the sink inserts at once.
const DefaultBatch = 20000

// Config tunes a [Sink]; the zero value sinks every topic.
type Config struct {
	Topics   []string        // default: every topic in the catalog
	Batch    int             // records per insert, across partitions (default DefaultBatch)
	Poll     time.Duration   // Follow's wait when caught up (default 500 ms)
	Attempts int             // tries of a catch-up that fails on the network (default 3; see [Sink.CatchUp])
	Catalog  *topics.Catalog // default topics.DefaultCatalog()
	Metrics  Metrics
	Logger   *slog.Logger
	Now      func() time.Time // the checkpoint's written_at (default time.Now)
	// Origin names the log being sunk when several logs share one
	// warehouse: a signer's id (see [DetectOrigin]); empty for the
	// relay's. Rows and checkpoints of a log with an origin are stored
	// under the topic qualified by it (see [StoredTopic]), so the logs'
	// positions never collide.
	Origin string
}

func (c *Config) setDefaults() {
	if len(c.Topics) == 0 {
		for _, t := range topics.Topics() {
			c.Topics = append(c.Topics, t.Name)
		}
	}
	if c.Batch <= 0 {
		c.Batch = DefaultBatch
	}
	if c.Poll <= 0 {
		c.Poll = 500 * time.Millisecond
	}
	if c.Attempts <= 0 {
		c.Attempts = 3
	}
	if c.Catalog == nil {
		c.Catalog = topics.DefaultCatalog()
	}
	if c.Metrics == nil {
		c.Metrics = NopMetrics{}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Sink copies the log into the warehouse.
type Sink struct {
	log     topics.Log
	wh      Warehouse
	cfg     Config
	checked map[partitionKey]bool // partitions whose last row matched the log
	// auditBackfilled: the records sunk before schema version 2 have
	// their audit rows (see backfillAudit).
	auditBackfilled bool
}

// NewSink returns a sink from lg into wh (already migrated, see
// [Migrate]).
func NewSink(lg topics.Log, wh Warehouse, cfg Config) *Sink {
	cfg.setDefaults()
	return &Sink{log: lg, wh: wh, cfg: cfg, checked: map[partitionKey]bool{}}
}

// Stats says what a catch-up wrote.
type Stats struct {
	Records     int // rows written
	Undecodable int // of which could not be decoded
	// AuditBackfilled counts records sunk before schema version 2 whose
	// audit copies and keys were written (see [Sink.CatchUp]).
	AuditBackfilled int
}

// CatchUp writes every record past the sink's checkpoints up to the log's
// current end, in batches: rows first, then the checkpoint, so a sink
// that dies between the two writes the same rows again (collapsed by the
// table's key) and never skips one. That also makes it safe to try again:
// a catch-up that fails on the network (a connection closed under a call,
// a reset, a timeout) starts over from the checkpoints, up to
// cfg.Attempts tries, waiting 250 ms and then twice as long each time.
// Other errors (a warehouse of another log, a damaged log) are returned at
// once. Each row's audit copy and keys go into [AuditEventsTable] and
// [KeysTable] after the rows and before the checkpoint, so they too are
// rewritten, never skipped; on a warehouse migrated from schema version
// 1 the first catch-up also writes those of the records sunk before,
// from the log.
func (s *Sink) CatchUp(ctx context.Context) (Stats, error) {
	var total Stats
	err := retryOnNetwork(ctx, s.cfg.Attempts, s.cfg.Logger, "analytics sink", func() error {
		st, err := s.catchUp(ctx)
		total.Records += st.Records
		total.Undecodable += st.Undecodable
		total.AuditBackfilled += st.AuditBackfilled
		return err
	})
	return total, err
}

// retryOnNetwork runs try, an idempotent step, until it succeeds, fails
// otherwise than on the network, or has run attempts times; it waits 250
// ms before the second try and twice as long before each later one.
func retryOnNetwork(ctx context.Context, attempts int, logger *slog.Logger, what string, try func() error) error {
	wait := 250 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := try()
		if err == nil || attempt >= attempts || !onTheNetwork(err) || ctx.Err() != nil {
			return err
		}
		logger.Warn(what+" failed on the network; trying again", "attempt", attempt, "err", err, "retry_in", wait)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// onTheNetwork says whether err is the network failing under a call: the
// same call may well succeed on a new connection.
func onTheNetwork(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, net.ErrClosed) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

func (s *Sink) catchUp(ctx context.Context) (Stats, error) {
	var st Stats
	cps, err := s.checkpoints(ctx)
	if err != nil {
		return st, err
	}
	// Every partition is checked before anything is written.
	ends := make([][]int64, len(s.cfg.Topics))
	for i, topic := range s.cfg.Topics {
		if ends[i], err = s.log.EndOffsets(ctx, topic); err != nil {
			return st, fmt.Errorf("analytics: end offsets of %s: %w", topic, err)
		}
		for p, end := range ends[i] {
			if err := s.sameLog(ctx, topic, int32(p), cps[s.partition(topic, p)], end); err != nil {
				return st, err
			}
		}
	}
	if err := s.backfillAudit(ctx, &st); err != nil {
		return st, err
	}
	copied, err := s.copyRecords(ctx, cps, ends)
	copied.AuditBackfilled += st.AuditBackfilled
	return copied, err
}

// copyRecords reads the records from the checkpoints cps to ends and
// writes them, batch after batch. Two batches take turns: one goroutine
// reads and decodes the next batch while this one inserts the last, so
// decoding (the sink's own work) overlaps the server's. Batches are
// inserted in the order they were read, each one's rows before its
// checkpoint.
func (s *Sink) copyRecords(ctx context.Context, cps map[partitionKey]int64, ends [][]int64) (Stats, error) {
	// The reader stops on stop, not on a cancelled context: a context
	// cancelled under a finished insert can close its pooled connection
	// (see adapters/clickhouse's Insert).
	stop := make(chan struct{})
	free, full := make(chan *pending, 2), make(chan *pending)
	free <- newPending()
	free <- newPending()
	read := make(chan error, 1)
	go func() {
		defer close(full)
		read <- s.readBatches(ctx, cps, ends, stop, free, full)
	}()
	var st Stats
	var err error
	for b := range full {
		if err == nil {
			if err = s.flush(ctx, b, &st); err != nil {
				close(stop)
			}
		}
		free <- b
	}
	if rerr := <-read; err == nil {
		err = rerr
	}
	return st, err
}

// readBatches fills batches taken from free with the records from cps to
// ends and hands each one on to full once it holds cfg.Batch records, and
// the last one when the records end. It returns when stop is closed.
func (s *Sink) readBatches(ctx context.Context, cps map[partitionKey]int64, ends [][]int64,
	stop <-chan struct{}, free <-chan *pending, full chan<- *pending) error {
	b := <-free
	for i, topic := range s.cfg.Topics {
		for p, end := range ends[i] {
			from := cps[s.partition(topic, p)]
			for from < end {
				recs, err := s.log.Read(ctx, topic, int32(p), from, s.cfg.Batch-b.events.rows)
				if err != nil {
					return fmt.Errorf("analytics: read %s/%d@%d: %w", topic, p, from, err)
				}
				if len(recs) == 0 {
					break // Kafka offsets may end in a gap
				}
				s.add(b, recs)
				from = recs[len(recs)-1].Offset + 1
				if b.events.rows < s.cfg.Batch {
					continue
				}
				select {
				case full <- b:
				case <-stop:
					return nil
				}
				select {
				case b = <-free:
				case <-stop:
					return nil
				}
			}
		}
	}
	if b.events.rows > 0 {
		select {
		case full <- b:
		case <-stop:
		}
	}
	return nil
}

// pending is a batch being built: rows of any partitions, and where each
// partition's checkpoint goes once they are in.
type pending struct {
	events *block[Row]
	audit  auditRows
	bad    int
	topics map[string][2]int // records and undecodable ones per topic, for the metrics
	next   map[partitionKey]uint64
}

func newPending() *pending {
	return &pending{events: eventBlock(), audit: newAuditRows(), topics: map[string][2]int{}, next: map[partitionKey]uint64{}}
}

// reset empties the batch, keeping its memory for the next one.
func (b *pending) reset() {
	b.events.reset()
	b.audit.reset()
	b.bad = 0
	clear(b.topics)
	clear(b.next)
}

func (s *Sink) add(b *pending, recs []topics.Record) {
	last := recs[len(recs)-1]
	counts := b.topics[last.Topic]
	counts[0] += len(recs)
	for i := range recs {
		r := RowOf(s.cfg.Catalog, &recs[i])
		r.Topic = StoredTopic(r.Topic, s.cfg.Origin)
		if r.DecodeError != "" {
			b.bad++
			counts[1]++
			s.cfg.Logger.Warn("analytics: undecodable record kept with its error", "position",
				fmt.Sprintf("%s/%d@%d", r.Topic, r.Partition, r.Offset), "err", r.DecodeError)
		}
		b.events.add(&r)
		b.audit.add(&r)
	}
	b.topics[last.Topic] = counts
	b.next[s.partition(last.Topic, int(last.Partition))] = uint64(last.Offset + 1)
}

// flush inserts the batch's rows as one block, then their audit copies
// and keys, and then moves the checkpoints of every partition in it: a
// sink that dies in between writes the same rows again, never skips
// one.
func (s *Sink) flush(ctx context.Context, b *pending, st *Stats) error {
	if b.events.rows == 0 {
		return nil
	}
	if err := s.wh.InsertColumns(ctx, EventsTable, b.events.names(), b.events.values()); err != nil {
		s.cfg.Metrics.InsertFailed(EventsTable)
		return fmt.Errorf("analytics: insert %d records: %w", b.events.rows, err)
	}
	if err := s.insertAudit(ctx, &b.audit); err != nil {
		return err
	}
	for topic, n := range b.topics {
		s.cfg.Metrics.Sunk(topic, n[0])
		if n[1] > 0 {
			s.cfg.Metrics.Undecodable(topic, n[1])
		}
	}
	st.Records += b.events.rows
	st.Undecodable += b.bad
	now := dateTime(s.cfg.Now())
	cps := make([][]any, 0, len(b.next))
	for k, next := range b.next {
		cps = append(cps, []any{k.topic, k.part, next, now})
	}
	if err := s.wh.Insert(ctx, CheckpointsTable, []string{"topic", "log_partition", "next_offset", "written_at"}, cps); err != nil {
		s.cfg.Metrics.InsertFailed(CheckpointsTable)
		return fmt.Errorf("analytics: checkpoint %d partitions: %w", len(cps), err)
	}
	b.reset()
	return nil
}

// WrongLogError: the warehouse was filled from another log than the one
// the sink reads (another data directory, a new Kafka cluster): it got
// further than this log reaches, or holds another event where it
// stopped. Nothing is written, since sinking this log's records beside
// the old rows would mix two histories.
type WrongLogError struct {
	Topic     string
	Partition int32
	Offset    int64
	Why       string
}

func (e *WrongLogError) Error() string {
	return fmt.Sprintf("analytics: the warehouse does not match the log at %s/%d@%d (%s): use another ClickHouse database for another log"+
		" (for a log restored from an older backup too: this one keeps the records the restore lost)",
		e.Topic, e.Partition, e.Offset, e.Why)
}

// sameLog checks, once per partition and sink, that the warehouse's last
// row of the partition is the log's record at that offset.
func (s *Sink) sameLog(ctx context.Context, topic string, part int32, from, end int64) error {
	if from > end {
		return &WrongLogError{Topic: topic, Partition: part, Offset: end,
			Why: fmt.Sprintf("the warehouse has records up to offset %d, the log ends at %d", from-1, end)}
	}
	k := s.partition(topic, int(part))
	if from == 0 || s.checked[k] {
		return nil
	}
	recs, err := s.log.Read(ctx, topic, part, from-1, 1)
	if err != nil {
		return fmt.Errorf("analytics: read %s/%d@%d: %w", topic, part, from-1, err)
	}
	if len(recs) == 1 && recs[0].Offset == from-1 { // (a Kafka offset may be a gap)
		logged := RowOf(s.cfg.Catalog, &recs[0])
		rows, err := s.wh.Query(ctx, `SELECT event_id, decode_error FROM `+EventsTable+
			` WHERE topic = ? AND log_partition = ? AND log_offset = ? LIMIT 1`, k.topic, k.part, uint64(from-1))
		if err != nil {
			return fmt.Errorf("analytics: read the last row of %s/%d: %w", topic, part, err)
		}
		got, err := scanAll(rows, func(r *Row) []any { return []any{&r.EventID, &r.DecodeError} })
		if err != nil {
			return fmt.Errorf("analytics: read the last row of %s/%d: %w", topic, part, err)
		}
		if len(got) == 1 && (got[0].EventID != logged.EventID || (got[0].DecodeError == "") != (logged.DecodeError == "")) {
			return &WrongLogError{Topic: topic, Partition: part, Offset: from - 1,
				Why: fmt.Sprintf("event %q in the warehouse, %q on the log", got[0].EventID, logged.EventID)}
		}
	}
	s.checked[k] = true
	return nil
}

// partitionKey is a partition as the warehouse stores it: topic is the
// stored (origin-qualified) name.
type partitionKey struct {
	topic string
	part  uint32
}

// partition is where the warehouse keeps partition p of the log's topic.
func (s *Sink) partition(topic string, p int) partitionKey {
	return partitionKey{StoredTopic(topic, s.cfg.Origin), uint32(p)}
}

// checkpoints reads where the sink stopped in each partition.
func (s *Sink) checkpoints(ctx context.Context) (map[partitionKey]int64, error) {
	rows, err := s.wh.Query(ctx, `SELECT topic, log_partition, max(next_offset) FROM `+CheckpointsTable+
		` GROUP BY topic, log_partition`)
	if err != nil {
		return nil, fmt.Errorf("analytics: read checkpoints: %w", err)
	}
	defer rows.Close()
	out := map[partitionKey]int64{}
	for rows.Next() {
		var k partitionKey
		var next uint64
		if err := rows.Scan(&k.topic, &k.part, &next); err != nil {
			return nil, fmt.Errorf("analytics: read checkpoints: %w", err)
		}
		out[k] = int64(next)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("analytics: read checkpoints: %w", err)
	}
	return out, nil
}

// Follow catches up again and again until ctx ends, calling onRound after
// every catch-up that wrote something. A failed round (the warehouse or
// the log unreachable) is logged and retried with a growing pause (up to
// 30 s): the rows are on the log and the checkpoint did not move, so
// nothing is lost while it waits.
func (s *Sink) Follow(ctx context.Context, onRound func(Stats)) error {
	wait := s.cfg.Poll
	for {
		st, err := s.CatchUp(ctx)
		switch {
		case ctx.Err() != nil:
		case err != nil:
			wait = min(2*wait, 30*time.Second)
			s.cfg.Logger.Warn("analytics sink round failed; retrying", "err", err, "retry_in", wait)
		default:
			wait = s.cfg.Poll
			if st.Records > 0 && onRound != nil {
				onRound(st)
			}
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.Canceled) {
				return nil
			}
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}
