package projections

import (
	"context"
	"errors"
	"fmt"

	"github.com/cespare/xxhash/v2"

	"github.com/bridgelog/bridgelog/topics"
)

// AuditKeys is audit_keys, one row per (key, kind, log position) that
// [AuditKeysOf] gives for an event, indexed by key: every event of the
// topics it reads, duplicates and conflicts included. It is what lets
// `bridgelog audit` find an event without ClickHouse. The events
// themselves stay on the log; a lookup reads them at the positions found.
// The key set is AuditKeysOf's, the one the warehouse's keys table is
// filled from, so the two audits find the same events.
//
// A row holds a 64-bit hash of its key ([AuditKeyHash]), not the key:
// the keys are long (ids of 60 to 100 bytes, hashes of 66) and a relay's
// events have five or so each, which made the table most of the store
// and its text index a fifth of a rebuild. A lookup reads the record at
// each position found, where the key itself is: two keys with one hash
// are told apart there (see [BridgeReader.AuditHits]).
//
// A row's id packs its position and its key's place in the event's key
// list (see [auditRowID]): deterministic, so a replay or a rewind inserts
// nothing twice; in position order, so each partition's rows go in at
// the end of its run of ids; a single integer, so a from-zero load can
// be staged, with the key index built once at the end. The position is
// read back from the id.
type AuditKeys struct{}

func (AuditKeys) Name() string { return "audit_keys" }

// Version 2: keys hashed with [AuditKeyHash] (version 1: [SourceHash]).
func (AuditKeys) Version() int { return 2 }

// Topics are every topic the relay's and a signer's projections read.
func (AuditKeys) Topics() []string {
	return []string{topics.TopicChain, topics.TopicBridge, topics.TopicBatches, topics.TopicClaims, topics.TopicSigning}
}
func (AuditKeys) KeepsNothingPastBatch() {} // every value goes to the store in the batch

// FoldsEveryVerdict: duplicates and conflicts are on the log and in the
// warehouse, so an audit shows them too.
func (AuditKeys) FoldsEveryVerdict() {}

func (p AuditKeys) table() string { return auditKeyTable.Name }

func (p AuditKeys) Tables() []Table { return []Table{auditKeyTable.Table} }

var auditKeyTable = declareTable(Versioned(AuditKeys{}.Name(), AuditKeys{}.Version()), []string{"id"},
	[]Index{{Columns: []string{"key_hash"}}},
	// The position is in the id (see auditRowID): a topic name in each
	// of the several rows of every event cost a rebuild much.
	i64Col("id", func(r *auditRow) *int64 { return &r.id }),
	i64Col("key_hash", func(r *auditRow) *int64 { return &r.hash }),
	strCol("kind", func(r *auditRow) *string { return &r.kind }),
)

var (
	auditKeyCols = auditKeyTable.ColumnNames()
	// auditHitsOf reads the rows of a key's hash, in position order.
	auditHitsOf = auditKeyTable.selectLive("key_hash = ? ORDER BY id", "id", "kind")
)

func (p AuditKeys) Apply(ctx context.Context, tx Tx, ev *Event) error {
	var w auditKeyWriter
	return w.write(ctx, tx, p.table(), []*Event{ev})
}

// NewSession folds whole batches, a multi-row insert for the keys of
// each few hundred events. It reads nothing, so a load from zero needs
// no index.
func (p AuditKeys) NewSession(bool) Session { return &auditKeySession{table: p.table()} }

type auditKeySession struct {
	table string
	w     auditKeyWriter
}

func (s *auditKeySession) ApplyBatch(ctx context.Context, tx Tx, evs []*Event) error {
	return s.w.write(ctx, tx, s.table, evs)
}

func (*auditKeySession) Flush(context.Context, Tx) error { return nil }

// auditKeyWriter inserts the keys of batches of events, a few hundred
// events at a time, through rows and arguments it reuses: a batch can
// be tens of thousands of events with four or five keys each, and rows
// built for all of them at once were most of what the projection kept
// live during a rebuild.
type auditKeyWriter struct {
	keyed []auditRow
	args  []any
}

// auditWriteEvents is how many events' keys go in one insert.
const auditWriteEvents = 512

// write inserts the keys of evs into table; rows there already (a
// replay) stay.
func (w *auditKeyWriter) write(ctx context.Context, tx Tx, table string, evs []*Event) error {
	a := colArgs(stageOf(tx, table) != nil)
	ins := Bulk{Table: table, Columns: auditKeyCols, OnConflict: auditKeyTable.PrimaryKey}
	for len(evs) > 0 {
		chunk := evs[:min(len(evs), auditWriteEvents)]
		evs = evs[len(chunk):]
		w.keyed = w.keyed[:0]
		for _, ev := range chunk {
			for i, k := range AuditKeysOf(&ev.Envelope, ev.Body) {
				id, err := auditRowID(ev.Position, i)
				if err != nil {
					return err
				}
				w.keyed = append(w.keyed, auditRow{id: id, hash: AuditKeyHash(k.Key), kind: k.Kind})
			}
		}
		w.args = w.args[:0]
		for i := range w.keyed {
			w.args = auditKeyTable.args(&w.keyed[i], w.args, a)
		}
		err := ins.Exec(ctx, tx, w.args)
		clear(w.args) // the values bound stay with the batch
		if err != nil {
			return err
		}
	}
	return nil
}

// AuditKeyHash is the hash audit_keys files a (normalized) key under:
// its 64-bit xxHash. A rebuild hashes four or five keys an event, where
// FNV-1a, a multiply a byte, was a twentieth of the relay log's rebuild.
func AuditKeyHash(key string) int64 { return int64(xxhash.Sum64String(key)) }

// auditRow is one audit_keys row.
type auditRow struct {
	id, hash int64
	kind     string
}

// The id of an audit_keys row: topic index (4 bits), partition (12),
// offset (36) and the key's place in the event's list (11 bits: a batch
// of [domain.MaxBatchLeaves] leaves lists about 2,005 keys).
const (
	auditKeyBits       = 11
	auditOffsetBits    = 36
	auditPartitionBits = 12
	auditTopicBits     = 4
)

// ErrAuditKeyID: a position or key count beyond what an audit_keys id
// packs.
var ErrAuditKeyID = errors.New("audit key id out of range")

// auditRowID packs the id of the i-th key of the event at p.
func auditRowID(p topics.Position, i int) (int64, error) {
	ti, ok := topicIndex[p.Topic]
	if !ok || ti >= 1<<auditTopicBits || p.Partition < 0 || p.Partition >= 1<<auditPartitionBits ||
		p.Offset < 0 || p.Offset >= 1<<auditOffsetBits || i >= 1<<auditKeyBits {
		return 0, fmt.Errorf("%w: key %d of the event at %s (known topic, partition < %d, offset < 2^%d, fewer than %d keys)",
			ErrAuditKeyID, i, FormatPosition(p), 1<<auditPartitionBits, auditOffsetBits, 1<<auditKeyBits)
	}
	return int64(ti)<<(auditPartitionBits+auditOffsetBits+auditKeyBits) | int64(p.Partition)<<(auditOffsetBits+auditKeyBits) |
		p.Offset<<auditKeyBits | int64(i), nil
}

// auditRowPosition is the log position an audit_keys id names.
func auditRowPosition(id int64) topics.Position {
	ti := int(id >> (auditPartitionBits + auditOffsetBits + auditKeyBits))
	p := topics.Position{
		Partition: int32(id >> (auditOffsetBits + auditKeyBits) & (1<<auditPartitionBits - 1)),
		Offset:    id >> auditKeyBits & (1<<auditOffsetBits - 1),
	}
	if specs := topics.Topics(); ti < len(specs) {
		p.Topic = specs[ti].Name
	}
	return p
}

// AuditHit is one event an audit key was found on, with the key's kind
// to it; an event the key is several things to gives several hits.
type AuditHit struct {
	Position topics.Position
	Kind     string
}

// AuditHits finds the events filed under key (normalized first: see
// [NormalizeAuditKey]) in audit_keys, by position: those with a key of
// the same hash, which the caller confirms against the record at the
// position (a hit whose record lacks the key is another key with the same
// hash, as rare as any 64-bit collision). It finds nothing while
// the projection was never built.
func (r BridgeReader) AuditHits(ctx context.Context, key string) ([]AuditHit, error) {
	var out []AuditHit
	err := r.read(ctx, func(tx Tx) error {
		t, err := table(ctx, tx, AuditKeys{}.Name(), AuditKeys{}.Name())
		if err != nil || t == "" {
			return err
		}
		key = NormalizeAuditKey(key)
		return queryEach(ctx, tx, auditHitsOf.on(t),
			[]any{AuditKeyHash(key)}, func(rows RowScanner) error {
				var id int64
				var h AuditHit
				if err := rows.Scan(&id, &h.Kind); err != nil {
					return err
				}
				h.Position = auditRowPosition(id)
				out = append(out, h)
				return nil
			})
	})
	if err != nil {
		return nil, fmt.Errorf("audit keys %q: %w", key, err)
	}
	return out, nil
}
