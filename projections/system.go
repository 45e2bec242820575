package projections

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/bridgelog/bridgelog/topics"
)

// Tables of the runner itself; their layout is [StoreFormat].
const (
	checkpointsTable = "projection_checkpoints"
	versionsTable    = "projection_versions"
	tablesTable      = "projection_tables"
)

// Version states in projection_versions.
const (
	StateLive     = "live"     // readers use this version's tables
	StateBuilding = "building" // being rebuilt from offset 0 beside the live one
	StateRetired  = "retired"  // replaced; tables kept until an operator prunes them
	StateDropped  = "dropped"  // retired, and its tables dropped by [Runner.Prune]
)

// SystemTables are the runner's own tables, created by every store.
func SystemTables() []Table {
	return []Table{
		{
			Name: checkpointsTable,
			Columns: []Column{
				{Name: "projection", Type: Text},
				{Name: "version", Type: Integer},
				{Name: "topic", Type: Text},
				{Name: "log_partition", Type: Integer},
				{Name: "next_offset", Type: Integer},
			},
			PrimaryKey: []string{"projection", "version", "topic", "log_partition"},
		},
		{
			Name: versionsTable,
			Columns: []Column{
				{Name: "projection", Type: Text},
				{Name: "version", Type: Integer},
				{Name: "state", Type: Text},
			},
			PrimaryKey: []string{"projection", "version"},
		},
		{
			// Which tables each version created, so that pruning a
			// retired version drops exactly its tables.
			Name: tablesTable,
			Columns: []Column{
				{Name: "projection", Type: Text},
				{Name: "version", Type: Integer},
				{Name: "table_name", Type: Text},
			},
			PrimaryKey: []string{"projection", "version", "table_name"},
		},
	}
}

// tp is one partition of one topic.
type tp struct {
	topic string
	part  int32
}

// checkpoint maps each partition to the next offset to fold.
type checkpoint map[tp]int64

func (c checkpoint) clone() checkpoint {
	out := make(checkpoint, len(c))
	for k, v := range c {
		out[k] = v
	}
	return out
}

func loadCheckpoint(ctx context.Context, tx Tx, name string, version int) (checkpoint, error) {
	cp := checkpoint{}
	err := queryEach(ctx, tx, `SELECT topic, log_partition, next_offset FROM `+checkpointsTable+
		` WHERE projection = ? AND version = ?`, []any{name, version}, func(rows RowScanner) error {
		var k tp
		var off int64
		if err := rows.Scan(&k.topic, &k.part, &off); err != nil {
			return err
		}
		cp[k] = off
		return nil
	})
	return cp, err
}

// ErrCheckpointMoved: another runner committed to the same store since
// this one read its checkpoints. The transaction is rolled back; the
// runner reloads the checkpoints and the next catch-up goes on from them.
var ErrCheckpointMoved = errors.New("checkpoint moved by another runner on this store")

// CheckpointMovedError names the checkpoint that moved.
type CheckpointMovedError struct {
	Projection string
	Version    int
	Topic      string
	Partition  int32
	Expected   int64 // -1: no checkpoint yet
}

func (e *CheckpointMovedError) Error() string {
	return fmt.Sprintf("%s@v%d %s/%d: expected next offset %d: another runner committed to this store meanwhile (rolled back; checkpoints reloaded)",
		e.Projection, e.Version, e.Topic, e.Partition, e.Expected)
}

func (e *CheckpointMovedError) Unwrap() error { return ErrCheckpointMoved }

// advanceCheckpoint moves a checkpoint from prev to next only if it still
// is at prev (had=false: only if there is none): a compare-and-set, so two
// runners on one store can never both fold the same events. On
// PostgreSQL the loser's UPDATE waits for the winner's commit and then
// matches no row.
func advanceCheckpoint(ctx context.Context, tx Tx, name string, version int, k tp, prev int64, had bool, next int64) error {
	var n int64
	var err error
	if had {
		n, err = tx.Exec(ctx, `UPDATE `+checkpointsTable+` SET next_offset = ?
			WHERE projection = ? AND version = ? AND topic = ? AND log_partition = ? AND next_offset = ?`,
			next, name, version, k.topic, k.part, prev)
	} else {
		prev = -1
		n, err = tx.Exec(ctx, `INSERT INTO `+checkpointsTable+` (projection, version, topic, log_partition, next_offset)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (projection, version, topic, log_partition) DO NOTHING`,
			name, version, k.topic, k.part, next)
	}
	if err != nil {
		return err
	}
	if n != 1 {
		return &CheckpointMovedError{Projection: name, Version: version, Topic: k.topic, Partition: k.part, Expected: prev}
	}
	return nil
}

// saveCheckpoint sets a checkpoint whatever it was (operator rewinds).
func saveCheckpoint(ctx context.Context, tx Tx, name string, version int, k tp, next int64) error {
	_, err := tx.Exec(ctx, `INSERT INTO `+checkpointsTable+` (projection, version, topic, log_partition, next_offset)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (projection, version, topic, log_partition) DO UPDATE SET next_offset = excluded.next_offset`,
		name, version, k.topic, k.part, next)
	return err
}

func deleteCheckpoint(ctx context.Context, tx Tx, name string, version int) error {
	_, err := tx.Exec(ctx, `DELETE FROM `+checkpointsTable+` WHERE projection = ? AND version = ?`, name, version)
	return err
}

// VersionState is one row of projection_versions.
type VersionState struct {
	Projection string
	Version    int
	State      string
}

// Versions lists every recorded version of every projection.
func Versions(ctx context.Context, tx Tx) ([]VersionState, error) {
	var out []VersionState
	err := queryEach(ctx, tx, `SELECT projection, version, state FROM `+versionsTable+` ORDER BY projection, version`, nil,
		func(rows RowScanner) error {
			var v VersionState
			if err := rows.Scan(&v.Projection, &v.Version, &v.State); err != nil {
				return err
			}
			out = append(out, v)
			return nil
		})
	return out, err
}

// ErrNoLiveVersion: the projection has never been built in this store.
var ErrNoLiveVersion = errors.New("projection has no live version")

// LiveVersion returns the version readers should use: handlers read
// Versioned(table, LiveVersion(...)), so a version switch needs no
// redeploy of readers.
func LiveVersion(ctx context.Context, tx Tx, name string) (int, error) {
	var v int
	err := tx.QueryRow(ctx, `SELECT version FROM `+versionsTable+` WHERE projection = ? AND state = ?`, name, StateLive).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("%w: %s", ErrNoLiveVersion, name)
	}
	return v, err
}

func setVersionState(ctx context.Context, tx Tx, name string, version int, state string) error {
	_, err := tx.Exec(ctx, `INSERT INTO `+versionsTable+` (projection, version, state) VALUES (?, ?, ?)
		ON CONFLICT (projection, version) DO UPDATE SET state = excluded.state`, name, version, state)
	return err
}

// timeLayout is fixed-width, UTC, nanoseconds: it sorts as text and is
// byte-identical on every engine.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

// FormatTime renders an envelope time for a Text column. The zero time
// (unknown) is NULL.
func FormatTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return formatTime(t)
}

// formatTime writes t in timeLayout. The layout is fixed-width, so the
// digits go straight into place: time.Format parses the layout on every
// call, and a rebuild formats a time for nearly every event.
func formatTime(t time.Time) string {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.Format(timeLayout) // not fixed-width any more; never in practice
	}
	hour, minute, sec := t.Clock()
	var b [len(timeLayout)]byte
	put := func(at, width, v int) {
		for i := at + width - 1; i >= at; i-- {
			b[i] = byte('0' + v%10)
			v /= 10
		}
	}
	put(0, 4, year)
	b[4] = '-'
	put(5, 2, int(month))
	b[7] = '-'
	put(8, 2, day)
	b[10] = 'T'
	put(11, 2, hour)
	b[13] = ':'
	put(14, 2, minute)
	b[16] = ':'
	put(17, 2, sec)
	b[19] = '.'
	put(20, 9, t.Nanosecond())
	b[29] = 'Z'
	return string(b[:])
}

// ParseTime reads a time written by [FormatTime].
func ParseTime(s string) (time.Time, error) {
	return time.Parse(timeLayout, s)
}

// pos renders a position for errors.
func pos(topic string, part int32, off int64) string {
	return FormatPosition(topics.Position{Topic: topic, Partition: part, Offset: off})
}
