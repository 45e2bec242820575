package projections

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// Projection is a versioned pure fold of events into tables.
type Projection interface {
	// Name is stable across versions ("deposits").
	Name() string
	// Version is bumped whenever Apply or Tables change meaning; a higher
	// version is rebuilt from offset 0 beside the live one and then
	// switched to (see [Runner]).
	Version() int
	// Topics lists the topics the projection folds.
	Topics() []string
	// Tables declares the projection's tables. Every name must end in
	// _v<Version> (use [Versioned]) so two versions never share a table.
	Tables() []Table
	// Apply folds one [First] event (any, for [EveryVerdict]) into the
	// tables through tx. Returning an error aborts the whole batch;
	// nothing of it is committed. The event's envelope strings and
	// payload share the log's read buffer; see [BatchScoped] for when
	// that buffer is reused.
	Apply(ctx context.Context, tx Tx, ev *Event) error
}

// BatchScoped is implemented by a projection that keeps nothing of an
// event once the batch it came in is folded: no pointer to the [Event],
// to its envelope's strings, its payload or its Body (copy what is kept
// longer; values written through a [Tx] are copied by the store).
//
// A catch-up reuses the memory it reads and decodes the log into, batch
// after batch, only when every projection it drives is BatchScoped: that
// spares a rebuild most of its allocation. A projection that does not
// say so makes the runner read every batch into fresh memory, slower but
// safe whatever the projection keeps: reused memory would change a kept
// string silently, not crash.
type BatchScoped interface {
	// KeepsNothingPastBatch only marks the promise above.
	KeepsNothingPastBatch()
}

// EveryVerdict is implemented by a projection that folds every event the
// runner reads, [Duplicate]s and [Conflict]s as well as [First] ones
// (Event.Verdict says which): one that records where things are on the
// log, as the warehouse does, rather than what they mean.
type EveryVerdict interface {
	// FoldsEveryVerdict only marks the projection.
	FoldsEveryVerdict()
}

// SessionFolder is an optional fast path: a projection that implements it
// receives whole batches (First events only, or every one for
// [EveryVerdict]; in log order per partition) through a [Session] that
// lives for one catch-up, so it can keep rows in memory across the
// batches of a transaction and write each one once per commit. It must
// give exactly the rows that calling Apply on each event in turn would
// give.
type SessionFolder interface {
	// NewSession starts a session. fromZero says the projection's tables
	// were empty when the catch-up began and the runner has dropped their
	// secondary indexes (it builds them again when the catch-up is done:
	// sorting once is far cheaper than keeping random-order indexes up to
	// date row by row), so the session must find its rows without them.
	NewSession(fromZero bool) Session
}

// Session folds the First events of one catch-up.
type Session interface {
	// ApplyBatch folds a batch, maybe keeping rows back in memory (as
	// for Apply, nothing kept may share the events' memory).
	ApplyBatch(ctx context.Context, tx Tx, evs []*Event) error
	// Flush writes what ApplyBatch kept back. The runner calls it in the
	// open transaction just before every commit; an error aborts it.
	Flush(ctx context.Context, tx Tx) error
}

// Verdict is the idempotency judgement of an event by its source key.
type Verdict uint8

const (
	// Unjudged is the zero value: the event has not been judged yet.
	Unjudged Verdict = iota
	// First: the first event in log order with its source key. Only
	// First events reach projections.
	First
	// Duplicate: a later event with the same key and the same content
	// (type and payload). A no-op downstream.
	Duplicate
	// Conflict: a later event with the same key and different content.
	// Recorded in event_conflicts, never applied.
	Conflict
)

func (v Verdict) String() string {
	switch v {
	case First:
		return "first"
	case Duplicate:
		return "duplicate"
	case Conflict:
		return "conflict"
	}
	return "unjudged"
}

// Event is one decoded envelope as a projection sees it.
type Event struct {
	Envelope topics.Envelope
	Position topics.Position
	Verdict  Verdict
	// Body is the decoded payload (a pointer, e.g. *domain.DepositDetected)
	// when the type is one [DecodeBody] knows; nil otherwise, in which
	// case use [Event.Decode].
	Body domain.Event
	// ContentHash is sha256(type || 0x00 || payload): what "same content"
	// means for duplicates.
	ContentHash [32]byte

	// What processed_events needs, derived once by [Event.derive] on the
	// runner's reading goroutine so its writing goroutine does not.
	derived    bool
	sourceHash int64
	recordedAt string // processed_at, unless the envelope has no recorded time
	contentHex string
}

// recordedAtText is processed_at: NULL for an unknown time.
func (e *Event) recordedAtText() sql.NullString {
	return sql.NullString{String: e.recordedAt, Valid: !e.Envelope.RecordedAt.IsZero()}
}

// derive fills the derived fields (once).
func (e *Event) derive() {
	if e.derived {
		return
	}
	e.sourceHash = keyHash(e.Envelope.SourceKey)
	if !e.Envelope.RecordedAt.IsZero() {
		e.recordedAt = formatTime(e.Envelope.RecordedAt)
	}
	var h [2 * len(e.ContentHash)]byte
	hex.Encode(h[:], e.ContentHash[:])
	e.contentHex = string(h[:]) // one allocation; hex.EncodeToString takes two
	e.derived = true
}

// Decode decodes the payload into v.
func (e *Event) Decode(v any) error {
	if err := topics.DecodePayload(e.Envelope.Payload, v); err != nil {
		return fmt.Errorf("%s at %s: %w", e.Envelope.Type, FormatPosition(e.Position), err)
	}
	return nil
}

// Tx is the store transaction a projection folds through. Queries use ?
// placeholders (rebound to $n on PostgreSQL) and the portable subset of
// SQL shared by SQLite and PostgreSQL 15: INSERT … ON CONFLICT (cols) DO
// UPDATE SET c = excluded.c / DO NOTHING, UPDATE, DELETE, SELECT.
type Tx interface {
	Exec(ctx context.Context, query string, args ...any) (rowsAffected int64, err error)
	Query(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRow(ctx context.Context, query string, args ...any) *sql.Row
	Dialect() Dialect
}

// Dialect names the SQL engine behind a [Tx].
type Dialect int

const (
	SQLite Dialect = iota + 1
	Postgres
)

func (d Dialect) String() string {
	switch d {
	case SQLite:
		return "sqlite"
	case Postgres:
		return "postgres"
	}
	return "unknown"
}

// Versioned names a table of a projection version: Versioned("deposits", 1)
// is "deposits_v1".
func Versioned(base string, version int) string {
	return fmt.Sprintf("%s_v%d", base, version)
}

// FormatPosition renders a log position as topic/partition@offset, the form
// every error and log line uses.
func FormatPosition(p topics.Position) string {
	return fmt.Sprintf("%s/%d@%d", p.Topic, p.Partition, p.Offset)
}
