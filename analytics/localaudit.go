package analytics

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// AuditIndex finds the log positions an audit key names: the audit_keys
// projection ([projections.BridgeReader]).
type AuditIndex interface {
	AuditHits(ctx context.Context, key string) ([]projections.AuditHit, error)
}

// RecordReader reads records from the log ([topics.Log]).
type RecordReader interface {
	Read(ctx context.Context, topic string, partition int32, from int64, max int) ([]topics.Record, error)
}

// ErrAuditIndexStale: the audit index names a record the log does not
// hold: the log was pruned below it, or the store was built from another
// log.
var ErrAuditIndexStale = errors.New("audit index does not match the log")

// NewLocalFinder is the [Finder] of a data directory without ClickHouse:
// the positions from the store's audit_keys projection (index), the
// events read from the log there (lg) and made rows as the sink makes
// them ([RowOf] with cat, nil for the default catalog), so its matches
// are the warehouse finder's for the same log. A match's Kinds are
// sorted. It finds what the projection has folded: a store behind its
// log misses the newest events.
func NewLocalFinder(index AuditIndex, lg RecordReader, cat *topics.Catalog, opts ...LocalFinderOption) Finder {
	if cat == nil {
		cat = topics.DefaultCatalog()
	}
	f := localFinder{index: index, log: lg, cat: cat}
	for _, o := range opts {
		o(&f)
	}
	return f
}

// LocalFinderOption tunes [NewLocalFinder].
type LocalFinderOption func(*localFinder)

// WithOrigin names the log's origin (a signer's id, see [DetectOrigin]):
// its rows then carry the topic the sink stores them under
// ([StoredTopic]), so a signer's local audit names its log as the
// warehouse does.
func WithOrigin(origin string) LocalFinderOption {
	return func(f *localFinder) { f.origin = origin }
}

type localFinder struct {
	index  AuditIndex
	log    RecordReader
	cat    *topics.Catalog
	origin string
}

func (f localFinder) Find(ctx context.Context, key string) ([]AuditMatch, error) {
	key = projections.NormalizeAuditKey(key)
	hits, err := f.index.AuditHits(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("analytics: audit %s: %w", key, err)
	}
	kinds := map[topics.Position][]string{}
	for _, h := range hits {
		kinds[h.Position] = append(kinds[h.Position], h.Kind)
	}
	out := make([]AuditMatch, 0, len(kinds))
	for pos, ks := range kinds {
		row, err := f.row(ctx, pos)
		if err != nil {
			return nil, fmt.Errorf("analytics: audit %s: %w", key, err)
		}
		// The index files hashes of keys: the record says which of its
		// keys this one is, if any (another key may share the hash).
		var mine []string
		for _, k := range ks {
			if slices.Contains(row.Keys, projections.AuditKey{Key: key, Kind: k}) {
				mine = append(mine, k)
			}
		}
		if len(mine) == 0 {
			continue
		}
		slices.Sort(mine)
		out = append(out, AuditMatch{Kinds: mine, AuditRow: auditRowOf(&row)})
	}
	slices.SortFunc(out, compareMatches)
	return out, nil
}

// row reads the record at pos and makes it a row.
func (f localFinder) row(ctx context.Context, pos topics.Position) (Row, error) {
	recs, err := f.log.Read(ctx, pos.Topic, pos.Partition, pos.Offset, 1)
	if errors.Is(err, topics.ErrOffsetRange) {
		return Row{}, fmt.Errorf("%w: no record at %s: %w", ErrAuditIndexStale, projections.FormatPosition(pos), err)
	}
	if err != nil {
		return Row{}, fmt.Errorf("read %s: %w", projections.FormatPosition(pos), err)
	}
	if len(recs) == 0 || recs[0].Offset != pos.Offset {
		return Row{}, fmt.Errorf("%w: no record at %s", ErrAuditIndexStale, projections.FormatPosition(pos))
	}
	row := RowOf(f.cat, &recs[0])
	row.Topic = StoredTopic(row.Topic, f.origin)
	return row, nil
}

// auditRowOf is the audit row of r as the warehouse gives it back:
// recorded_at is a DateTime there, whole seconds in UTC.
func auditRowOf(r *Row) AuditRow {
	return AuditRow{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset,
		RecordedAt: dateTime(r.RecordedAt), RecordedMs: r.RecordedMs, Type: r.Type, SourceKey: r.SourceKey,
		EventID: r.EventID, AggregateID: r.AggregateID, Correlation: r.CorrelationID,
		Payload: r.Payload, DecodeError: r.DecodeError}
}
