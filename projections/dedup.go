package projections

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math/bits"
	"strings"
)

// ProcessedEvents is seed 000's global dedup table as a projection: one
// row per source key, holding the first event with that key in log order,
// and event_conflicts, one row per later event with the same key and
// different content. The runner always runs it first: its verdict decides
// which events the other projections see.
//
// The seed's SERIAL id is the first event's log position ([PositionID]):
// deterministic (a rebuild gives the same ids) and in append order, so
// inserts go to the end of the table. Lookups by key go through a
// 64-bit hash of the key (source_hash) and compare the full key, because
// an index of full keys in random order is what makes a million-key
// rebuild slow.
type ProcessedEvents struct{}

// ProcessedEventsName is the dedup projection's name.
const ProcessedEventsName = "processed_events"

func (ProcessedEvents) Name() string           { return ProcessedEventsName }
func (ProcessedEvents) Version() int           { return 1 }
func (ProcessedEvents) Topics() []string       { return nil } // every topic the runner reads
func (ProcessedEvents) KeepsNothingPastBatch() {}             // its key cache copies the keys it keeps

func (p ProcessedEvents) table() string     { return processedTable.Name }
func (p ProcessedEvents) conflicts() string { return conflictTable.Name }

func (p ProcessedEvents) Tables() []Table { return []Table{processedTable.Table, conflictTable.Table} }

var processedTable = declareTable(Versioned("processed_events", ProcessedEvents{}.Version()), []string{"id"},
	[]Index{{Columns: []string{"source_hash"}}},
	i64Col("id", func(r *firstSeen) *int64 { return &r.rowid }), // PositionID of the first event
	strCol("first_topic", func(r *firstSeen) *string { return &r.topic }),
	i32Col("first_partition", func(r *firstSeen) *int32 { return &r.part }),
	i64Col("first_offset", func(r *firstSeen) *int64 { return &r.off }),
	strCol("event_source", func(r *firstSeen) *string { return &r.key }),
	i64Col("source_hash", func(r *firstSeen) *int64 { return &r.hash }),
	strCol("event_type", func(r *firstSeen) *string { return &r.typ }),
	strCol("first_event_id", func(r *firstSeen) *string { return &r.id }),
	strCol("content_hash", func(r *firstSeen) *string { return &r.contentHex }),
	textCol("processed_at", func(r *firstSeen) *sql.NullString { return &r.at }),
	i64Col("duplicates", func(r *firstSeen) *int64 { return &r.duplicates }),
)

// conflictRow is an event_conflicts row: a later event with a key's
// source and other content, and the key's first event.
type conflictRow struct {
	id, off, firstOff                         int64
	part, firstPart                           int32
	topic, source, eventID, typ, hash         string
	firstTopic, firstID, firstType, firstHash string
	recordedAt                                sql.NullString
}

var conflictTable = declareTable(Versioned("event_conflicts", ProcessedEvents{}.Version()), []string{"id"},
	[]Index{{Columns: []string{"event_source"}}},
	i64Col("id", func(r *conflictRow) *int64 { return &r.id }), // PositionID of the conflicting event
	strCol("conflict_topic", func(r *conflictRow) *string { return &r.topic }),
	i32Col("conflict_partition", func(r *conflictRow) *int32 { return &r.part }),
	i64Col("conflict_offset", func(r *conflictRow) *int64 { return &r.off }),
	strCol("event_source", func(r *conflictRow) *string { return &r.source }),
	strCol("conflict_event_id", func(r *conflictRow) *string { return &r.eventID }),
	strCol("conflict_type", func(r *conflictRow) *string { return &r.typ }),
	strCol("conflict_hash", func(r *conflictRow) *string { return &r.hash }),
	textCol("recorded_at", func(r *conflictRow) *sql.NullString { return &r.recordedAt }),
	strCol("first_topic", func(r *conflictRow) *string { return &r.firstTopic }),
	i32Col("first_partition", func(r *conflictRow) *int32 { return &r.firstPart }),
	i64Col("first_offset", func(r *conflictRow) *int64 { return &r.firstOff }),
	strCol("first_event_id", func(r *conflictRow) *string { return &r.firstID }),
	strCol("first_type", func(r *conflictRow) *string { return &r.firstType }),
	strCol("first_hash", func(r *conflictRow) *string { return &r.firstHash }),
)

var (
	processedCols = processedTable.ColumnNames()
	conflictCols  = conflictTable.ColumnNames()
	// What a look-up reads of a stored key (the rest is written once).
	firstSeenCols = processedTable.named("event_source", "id", "first_topic", "first_partition", "first_offset",
		"first_event_id", "event_type", "content_hash")
	// A look-up by source hash (see lookup), and the column it matches.
	firstSeenSelect = "SELECT " + strings.Join(firstSeenCols, ", ") + " FROM " + processedTable.Name
	sourceHashCol   = processedTable.col("source_hash")
	// The counter of a key's later duplicates (see addDuplicates).
	duplicatesCol = processedTable.col("duplicates")
)

// Apply judges one event as if it were the next one after the table's
// checkpoint. The runner calls [ProcessedEvents.judge] on whole batches.
func (p ProcessedEvents) Apply(ctx context.Context, tx Tx, ev *Event) error {
	_, err := p.judge(ctx, tx, []*Event{ev}, nil, nil)
	return err
}

// SourceHash is the 64-bit FNV-1a of a source key, as stored in
// processed_events.source_hash.
func SourceHash(key string) int64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return int64(h.Sum64())
}

// keyHash is [SourceHash]; tests swap it for one that collides.
var keyHash = SourceHash

// firstSeen is what the dedup table knows about a source key: its
// processed_events row.
type firstSeen struct {
	key     string
	rowid   int64
	topic   string
	part    int32
	off     int64
	id      string
	typ     string
	content [32]byte
	next    *firstSeen // another key with the same source hash
	// The rest of a new key's row, which a look-up does not read back.
	hash       int64
	contentHex string
	at         sql.NullString
	duplicates int64 // 0: counted in the stored row (addDuplicates)
}

// seenKeys indexes one batch's known keys by source hash, which every
// event carries already: hashing the full key string (about 100 bytes)
// for each look-up cost more than the rest of the look-up. Keys sharing a
// hash are chained and told apart by the full key.
type seenKeys map[int64]*firstSeen

func (m seenKeys) get(h int64, key string) *firstSeen {
	for f := m[h]; f != nil; f = f.next {
		if f.key == key {
			return f
		}
	}
	return nil
}

func (m seenKeys) put(h int64, f *firstSeen) {
	f.next = m[h]
	m[h] = f
}

func (f *firstSeen) is(ev *Event) bool {
	return f.off == ev.Position.Offset && f.part == ev.Position.Partition && f.topic == ev.Position.Topic
}

// judgeStats counts one batch's verdicts.
type judgeStats struct {
	first, duplicates, conflicts int
}

// judge sets ev.Verdict on every event. Events before the dedup table's
// checkpoint cp were judged by an earlier batch (another projection is
// being rebuilt): their verdict is read back. The others are judged now
// and recorded. cache, when not nil, holds keys seen earlier in this
// process and whether it knows every key in the table.
func (p ProcessedEvents) judge(ctx context.Context, tx Tx, evs []*Event, cp checkpoint, cache *dedupCache) (judgeStats, error) {
	var st judgeStats
	known, err := p.lookup(ctx, tx, evs, cache)
	if err != nil {
		return st, err
	}
	inserts := make([]any, 0, len(evs)*len(processedCols))
	staged := colArgs(stageOf(tx, p.table()) != nil)
	var conflicts []any
	dups := map[*firstSeen]int{}
	// The batch's new keys, in one allocation: the capacity is never
	// exceeded, so the pointers stay valid.
	fresh := make([]firstSeen, 0, len(evs))
	for _, ev := range evs {
		key := ev.Envelope.SourceKey
		f := known.get(ev.sourceHash, key)
		judged := cp != nil && ev.Position.Offset < cp[tp{ev.Position.Topic, ev.Position.Partition}]
		switch {
		case f == nil && judged:
			return st, fmt.Errorf("%s: event %s at %s was judged but has no row (source key %q): the store is damaged; rebuild it",
				p.table(), ev.Envelope.ID, FormatPosition(ev.Position), key)
		case f == nil:
			fresh = append(fresh, firstSeen{key: key, topic: ev.Position.Topic, part: ev.Position.Partition,
				off: ev.Position.Offset, id: ev.Envelope.ID, typ: ev.Envelope.Type, content: ev.ContentHash,
				hash: ev.sourceHash, contentHex: ev.contentHex, at: ev.recordedAtText()})
			f = &fresh[len(fresh)-1]
			if f.rowid, err = PositionID(ev.Position); err != nil {
				return st, err
			}
			known.put(ev.sourceHash, f)
			cache.add(ev.sourceHash, f.rowid)
			inserts = processedTable.args(f, inserts, staged)
			ev.Verdict = First
		case f.is(ev):
			ev.Verdict = First // judged before (a rebuild of another projection)
		case f.content == ev.ContentHash:
			ev.Verdict = Duplicate
			if !judged {
				dups[f]++
			}
		default:
			ev.Verdict = Conflict
			if !judged {
				cid, err := PositionID(ev.Position)
				if err != nil {
					return st, err
				}
				conflicts = conflictTable.args(&conflictRow{id: cid, topic: ev.Position.Topic, part: ev.Position.Partition,
					off: ev.Position.Offset, source: key, eventID: ev.Envelope.ID, typ: ev.Envelope.Type, hash: ev.contentHex,
					recordedAt: ev.recordedAtText(), firstTopic: f.topic, firstPart: f.part, firstOff: f.off, firstID: f.id,
					firstType: f.typ, firstHash: hex.EncodeToString(f.content[:])}, conflicts, false)
			}
		}
		switch ev.Verdict {
		case First:
			st.first++
		case Duplicate:
			st.duplicates++
		case Conflict:
			st.conflicts++
		}
	}
	ins := Bulk{Table: p.table(), Columns: processedCols, OnConflict: processedTable.PrimaryKey}
	if err := ins.Exec(ctx, tx, inserts); err != nil {
		return st, err
	}
	con := Bulk{Table: p.conflicts(), Columns: conflictCols, OnConflict: conflictTable.PrimaryKey}
	if err := con.Exec(ctx, tx, conflicts); err != nil {
		return st, err
	}
	if stage := stageOf(tx, p.table()); stage != nil {
		for f, n := range dups {
			if err := stage.Add(f.rowid, duplicatesCol, int64(n)); err != nil {
				return st, err
			}
		}
		return st, nil
	}
	return st, p.addDuplicates(ctx, tx, dups)
}

// addDuplicatesSQL is the statement of addDuplicates, around a list of
// (id, duplicates) rows: d.column1 and d.column2 are the names both
// engines give the columns of a VALUES list. Every parameter is cast, so
// neither engine has to infer the type of a bare parameter in it.
var addDuplicatesSQL = [2]string{
	"UPDATE " + processedTable.Name + " SET " + duplicatesCol + " = " + duplicatesCol + " + d.column2 FROM (VALUES ",
	") AS d WHERE " + processedTable.col("id") + " = d.column1",
}

const addDuplicatesRow = "(CAST(? AS BIGINT), CAST(? AS BIGINT))"

// addDuplicates adds to each row the later duplicates of its key, up to
// 64 rows a statement (see inChunks): one statement a row cost PostgreSQL
// a round trip each, and a rebuild of a million events has about 20,000
// of them.
func (p ProcessedEvents) addDuplicates(ctx context.Context, tx Tx, dups map[*firstSeen]int) error {
	args := make([]any, 0, 2*len(dups))
	for f, n := range dups {
		args = append(args, f.rowid, n)
	}
	return inChunks(args, 2, func(k int, chunk []any) error {
		q := addDuplicatesSQL[0] + strings.Repeat(addDuplicatesRow+", ", k-1) + addDuplicatesRow + addDuplicatesSQL[1]
		_, err := tx.Exec(ctx, q, chunk...)
		return err
	})
}

// lookup returns the stored rows of the batch's keys; a key it does not
// return is new. Keys the cache holds are read by row id; others through
// the source_hash index (which a rebuild from zero drops until it is
// done, when the cache knows every key).
func (p ProcessedEvents) lookup(ctx context.Context, tx Tx, evs []*Event, cache *dedupCache) (seenKeys, error) {
	known := make(seenKeys, len(evs))
	var hashes []any
	var ids []int64
	want := map[string]bool{}
	for _, ev := range evs {
		ev.derive()
	}
	cache.warm(evs)
	for _, ev := range evs {
		if cache.absent(ev.sourceHash) {
			continue // the cache knows the key is new
		}
		key := ev.Envelope.SourceKey
		if want[key] {
			continue
		}
		want[key] = true
		if rows := cache.rowids(ev.sourceHash); rows != nil {
			ids = append(ids, rows...)
		} else {
			hashes = append(hashes, ev.sourceHash)
		}
	}
	if len(hashes) > 0 && stageOf(tx, p.table()) != nil {
		// A staged table has no rows in SQL to find by hash: only the
		// cache knows its keys, and it must know all of them.
		return nil, fmt.Errorf("%s: staged while its key cache is incomplete", p.table())
	}
	scan := func(rows RowScanner) error {
		var key, ch string
		f := &firstSeen{}
		if err := rows.Scan(&key, &f.rowid, &f.topic, &f.part, &f.off, &f.id, &f.typ, &ch); err != nil {
			return err
		}
		if !want[key] {
			return nil // another key with the same hash, not asked for
		}
		if b, err := hex.DecodeString(ch); err != nil || len(b) != 32 {
			return fmt.Errorf("%s: key %q: bad content_hash %q", p.table(), key, ch)
		} else {
			copy(f.content[:], b)
		}
		f.key = key
		known.put(keyHash(key), f)
		return nil
	}
	if err := selectByID(ctx, tx, p.table(), firstSeenCols, ids, scan); err != nil {
		return nil, err
	}
	if err := queryIn(ctx, tx, firstSeenSelect, sourceHashCol, hashes, scan); err != nil {
		return nil, err
	}
	return known, nil
}

// queryEach runs q and calls each for every row; the rows are closed
// when it returns.
func queryEach(ctx context.Context, tx Tx, q string, args []any, each func(RowScanner) error) error {
	rows, err := tx.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// inChunk is how many keys one IN (…) query carries at most.
const inChunk = 256

// queryIn runs sel + " WHERE col IN (keys…)" in chunks, calling each for
// every row. The IN list is padded to a power of two with a repeated key:
// a few statement shapes instead of one per batch size.
func queryIn(ctx context.Context, tx Tx, sel, col string, keys []any, each func(RowScanner) error) error {
	for len(keys) > 0 {
		n := min(inChunk, len(keys))
		k := 1
		for k < n {
			k *= 2
		}
		args := keys[:n:n]
		for len(args) < k {
			args = append(args, keys[0])
		}
		q := sel + ` WHERE ` + col + ` IN (` + strings.TrimSuffix(strings.Repeat("?, ", k), ", ") + `)`
		if err := queryEach(ctx, tx, q, args, each); err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}

// dedupCache remembers the keys this process wrote, by source hash, with
// their row ids. When the table was empty as the process started (a
// rebuild), a key whose hash is absent is new, and the batch needs no
// lookup for it; a present one is read back by row id, so the rebuild
// needs no source_hash index at all.
type dedupCache struct {
	complete bool
	ids      rowIndex
	max      int
}

// newDedupCache returns a cache; complete says the table is empty now.
func newDedupCache(complete bool, max int) *dedupCache {
	if !complete {
		return nil
	}
	return &dedupCache{complete: true, max: max}
}

// usable says whether the cache knows every key in the table.
func (c *dedupCache) usable() bool { return c != nil && c.complete }

// room is how many more keys the cache can take before it gives up.
func (c *dedupCache) room() int {
	if !c.usable() {
		return 0
	}
	return c.max - c.ids.len()
}

// absent says the cache knows no key with source hash h is in the table.
func (c *dedupCache) absent(h int64) bool {
	if !c.usable() {
		return false
	}
	return !c.ids.has(h)
}

// reserve makes room for n more keys at once: growing step by step moves
// every key again at each doubling, in random order.
func (c *dedupCache) reserve(n int) {
	if c.usable() {
		c.ids.reserve(c.ids.len() + n)
	}
}

// warm loads the cache's slots for the events' hashes ahead of their
// look-ups (see [rowIndex.warm]).
func (c *dedupCache) warm(evs []*Event) {
	if c.usable() {
		c.ids.warm(evs)
	}
}

// rowids returns the row ids of every key with source hash h, or nil
// when the cache cannot say.
func (c *dedupCache) rowids(h int64) []int64 {
	if !c.usable() {
		return nil
	}
	return c.ids.ids(h)
}

func (c *dedupCache) add(h int64, rowid int64) {
	if !c.usable() {
		return
	}
	if c.ids.len() >= c.max {
		c.drop()
		return
	}
	c.ids.add(h, rowid)
}

// drop forgets everything: after a rolled-back batch the cache may hold
// keys the table does not, and past its bound it is not worth its memory.
func (c *dedupCache) drop() {
	if c == nil {
		return
	}
	c.complete = false
	c.ids = rowIndex{}
}

// rowIndex maps 64-bit key hashes to row ids: 16 bytes a slot, the
// in-memory stand-in for a table's index while a load from zero runs
// without it. Keys that share a hash all keep their ids; the caller reads
// the candidate rows and compares the full key.
//
// It is an open-addressing table with linear probing, at most half full:
// a look-up, usually of a hash that is absent, touches one or two
// neighbouring slots, where a Go map of a million keys touched a control
// word and a slot group (the dedup judge's largest cost after staging).
type rowIndex struct {
	slots []rowSlot // a power of two long
	n     int
	more  map[int64][]int64 // further ids of a shared hash
	sink  int64             // keeps warm's loads from being optimised away
}

// rowSlot holds a hash and its first id plus one (0: the slot is free).
type rowSlot struct {
	h, id1 int64
}

func (x *rowIndex) len() int { return x.n }

// home is where hash h's probe starts (Fibonacci hashing of h's bits).
func (x *rowIndex) home(h int64) int {
	return int((uint64(h) * 0x9e3779b97f4a7c15) >> (64 - bits.Len(uint(len(x.slots)-1))))
}

// find returns h's slot, or the free slot where it would go.
func (x *rowIndex) find(h int64) *rowSlot {
	mask := len(x.slots) - 1
	for i := x.home(h); ; i = (i + 1) & mask {
		if sl := &x.slots[i]; sl.id1 == 0 || sl.h == h {
			return sl
		}
	}
}

// warm loads the home slot of each event's source hash. The loads do not
// depend on each other, so the CPU has many misses in flight at once;
// the look-ups that follow then find their slots in cache instead of
// waiting on memory one after another (the table outgrows the caches at
// a few hundred thousand keys).
func (x *rowIndex) warm(evs []*Event) {
	if len(x.slots) == 0 {
		return
	}
	var sum int64
	for _, ev := range evs {
		sum += x.slots[x.home(ev.sourceHash)].h
	}
	x.sink = sum
}

// has says whether some id is stored under h.
func (x *rowIndex) has(h int64) bool {
	return x.n > 0 && x.find(h).id1 != 0
}

func (x *rowIndex) add(h, id int64) {
	if 2*(x.n+1) > len(x.slots) {
		x.reserve(x.n + 1)
	}
	sl := x.find(h)
	if sl.id1 == 0 {
		*sl = rowSlot{h: h, id1: id + 1}
		x.n++
		return
	}
	if x.more == nil {
		x.more = map[int64][]int64{}
	}
	x.more[h] = append(x.more[h], id)
}

// reserve sizes the table for n keys, at most half full, doubling it as
// often as needed.
func (x *rowIndex) reserve(n int) {
	size := max(len(x.slots), 1<<12)
	for 2*(n+1) > size {
		size *= 2
	}
	if size == len(x.slots) {
		return
	}
	old := x.slots
	x.slots = make([]rowSlot, size)
	for _, sl := range old {
		if sl.id1 != 0 {
			*x.find(sl.h) = sl
		}
	}
}

// ids returns the ids stored under h, nil if none.
func (x *rowIndex) ids(h int64) []int64 {
	if x.n == 0 {
		return nil
	}
	sl := x.find(h)
	if sl.id1 == 0 {
		return nil
	}
	return append([]int64{sl.id1 - 1}, x.more[h]...)
}
