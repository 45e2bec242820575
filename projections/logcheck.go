package projections

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/bridgelog/bridgelog/topics"
)

// A store's checkpoints only mean something against the log they were
// folded from. Given another log (a log truncated or restored from an
// older copy, a Kafka topic created again, another data directory or
// cluster), a runner would fold from offsets that belong to other records,
// and silently skip those appended at offsets the checkpoints already
// count. So before a catch-up folds anything, each partition's end must
// not lie before a checkpoint, and, once per runner and partition, the
// last event the dedup table recorded there must be the log's record at
// that offset.

// ErrLogBehind: the log ends before where a projection has folded it to.
var ErrLogBehind = errors.New("log ends before the store's checkpoint")

// LogBehindError names a partition that ends before a projection's
// checkpoint in it: the log has lost records that the store has folded
// (a log truncated or restored from an older copy, a Kafka topic created
// again), or the store belongs to another log. Folding on would skip the
// records appended next at the offsets the checkpoint already covers.
type LogBehindError struct {
	Projection string // name@vN
	Topic      string
	Partition  int32
	Checkpoint int64 // the next offset the projection would fold
	End        int64 // the log's end offset; -1: the log has no such partition
}

func (e *LogBehindError) Error() string {
	end := fmt.Sprintf("the log ends at offset %d", e.End)
	if e.End < 0 {
		end = "the log has no such partition"
	}
	return fmt.Sprintf("%v: %s has folded %s/%d up to offset %d, but %s; "+
		"if this log is the right one, rebuild the store from it (bridgelog replay), "+
		"otherwise point bridgelog at the log the store was built from",
		ErrLogBehind, e.Projection, e.Topic, e.Partition, e.Checkpoint, end)
}

func (e *LogBehindError) Unwrap() error { return ErrLogBehind }

// checkNotBehind refuses a topic whose log ends before a checkpoint of a
// projection reading it (ends are the log's end offsets, by partition).
func (r *Runner) checkNotBehind(topic string, ends []int64) error {
	for _, s := range r.all() {
		if !s.reads(topic) {
			continue
		}
		if err := notBehind(s.label(), s.cp, topic, ends); err != nil {
			r.cfg.metrics.Error(s.label())
			r.cfg.logger.Error("log ends before a projection's checkpoint", "projection", err.Projection,
				"topic", topic, "partition", err.Partition, "checkpoint", err.Checkpoint, "end", err.End)
			return err
		}
	}
	return nil
}

// notBehind is the check for one projection's checkpoint cp.
func notBehind(label string, cp checkpoint, topic string, ends []int64) *LogBehindError {
	for _, k := range foldedParts(cp, topic) {
		end := int64(-1)
		if int(k.part) < len(ends) {
			end = ends[k.part]
		}
		if cp[k] > end {
			return &LogBehindError{Projection: label, Topic: topic, Partition: k.part, Checkpoint: cp[k], End: end}
		}
	}
	return nil
}

// foldedParts lists the partitions of topic that cp has folded anything
// of, in partition order, so an error names the first.
func foldedParts(cp checkpoint, topic string) []tp {
	var parts []tp
	for k, off := range cp {
		if k.topic == topic && off > 0 {
			parts = append(parts, k)
		}
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].part < parts[j].part })
	return parts
}

// checkSameLog refuses a topic whose log does not match the store (ends
// are the log's end offsets, by partition).
func (r *Runner) checkSameLog(ctx context.Context, topic string, ends []int64) error {
	if err := r.checkNotBehind(topic, ends); err != nil {
		return err
	}
	var parts []tp
	for _, k := range foldedParts(r.judge.cp, topic) {
		if !r.sameLog[k] {
			parts = append(parts, k)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	tx, err := r.store.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, k := range parts {
		if err := lastFirstMatches(ctx, tx, r.log, r.dedup.table(), r.judge.cp[k], k); err != nil {
			var oerr *OtherLogError
			if errors.As(err, &oerr) {
				r.cfg.metrics.Error(r.judge.label())
				r.cfg.logger.Error("store folded from another log", "topic", k.topic, "partition", k.part,
					"offset", oerr.Offset, "store_event", oerr.StoreEventID, "log_event", oerr.LogEventID)
			}
			return err
		}
		r.sameLog[k] = true
	}
	return nil
}

// lastFirstMatches compares the last event processed_events (table)
// recorded as first in partition k, below next (its checkpoint there),
// with the log's record at its offset. A partition whose events below the
// checkpoint were all duplicates, conflicts or skipped has no such row,
// and a record Kafka no longer has cannot be compared: neither is refused.
func lastFirstMatches(ctx context.Context, tx Tx, lg topics.Log, table string, next int64, k tp) error {
	lo, err := PositionID(topics.Position{Topic: k.topic, Partition: k.part})
	if err != nil {
		return err
	}
	hi, err := PositionID(topics.Position{Topic: k.topic, Partition: k.part, Offset: next})
	if err != nil {
		return err
	}
	var id int64
	var stored string
	err = tx.QueryRow(ctx, processedTable.selectFrom(table, "id >= ? AND id < ? ORDER BY id DESC LIMIT 1", "id", "first_event_id"), lo, hi).Scan(&id, &stored)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("last event of %s/%d in %s: %w", k.topic, k.part, table, err)
	}
	off := id - lo
	recs, err := lg.Read(ctx, k.topic, k.part, off, 1)
	if errors.Is(err, topics.ErrOffsetRange) {
		return nil // gone by retention (Kafka): nothing to compare
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", FormatPosition(topics.Position{Topic: k.topic, Partition: k.part, Offset: off}), err)
	}
	if len(recs) == 0 || recs[0].Offset != off {
		return nil // compacted away or a gap (Kafka): nothing to compare
	}
	var logged string
	if env, err := topics.DecodeEnvelope(recs[0].Value); err != nil {
		logged = fmt.Sprintf("(undecodable: %v)", err)
	} else if env.ID == stored {
		return nil
	} else {
		logged = env.ID
	}
	return &OtherLogError{Topic: k.topic, Partition: k.part, Offset: off, StoreEventID: stored, LogEventID: logged}
}

// ErrOtherLog: the store was folded from another log.
var ErrOtherLog = errors.New("store was folded from another log")

// OtherLogError names the position where the store and the log disagree:
// the dedup table recorded one event there as first seen, the log holds
// another.
type OtherLogError struct {
	Topic        string
	Partition    int32
	Offset       int64
	StoreEventID string
	LogEventID   string
}

func (e *OtherLogError) Error() string {
	return fmt.Sprintf("%v: at %s/%d@%d the store recorded event %q as first seen, the log holds %s; "+
		"point bridgelog at the log the store was built from, or rebuild the store from this log (bridgelog replay)",
		ErrOtherLog, e.Topic, e.Partition, e.Offset, e.StoreEventID, quoteID(e.LogEventID))
}

func (e *OtherLogError) Unwrap() error { return ErrOtherLog }

// quoteID quotes an event id, not the note that stands in for the id of
// an undecodable record.
func quoteID(id string) string {
	if len(id) > 0 && id[0] == '(' {
		return id
	}
	return fmt.Sprintf("%q", id)
}

// CheckLog runs a catch-up's checks of the log against a store without
// folding anything: processed_events' checkpoint must not lie past the
// log's end in any partition, and the last event it recorded as first
// seen in each partition must be the log's record there. It returns a
// [LogBehindError] or an [OtherLogError], or nil; a store without that
// projection passes. verify runs it on the live store, whose digests
// would otherwise only differ.
func CheckLog(ctx context.Context, tx Tx, lg topics.Log) error {
	p := ProcessedEvents{}
	v, err := LiveVersion(ctx, tx, p.Name())
	if errors.Is(err, ErrNoLiveVersion) {
		return nil
	}
	if err != nil {
		return err
	}
	cp, err := loadCheckpoint(ctx, tx, p.Name(), v)
	if err != nil {
		return err
	}
	label, table := fmt.Sprintf("%s@v%d", p.Name(), v), Versioned(p.Name(), v)
	var names []string
	for k := range cp {
		if !slices.Contains(names, k.topic) {
			names = append(names, k.topic)
		}
	}
	sort.Strings(names)
	for _, topic := range names {
		ends, err := lg.EndOffsets(ctx, topic)
		if err != nil {
			return fmt.Errorf("end offsets of %s: %w", topic, err)
		}
		if err := notBehind(label, cp, topic, ends); err != nil {
			return err
		}
		for _, k := range foldedParts(cp, topic) {
			if err := lastFirstMatches(ctx, tx, lg, table, cp[k], k); err != nil {
				return err
			}
		}
	}
	return nil
}
