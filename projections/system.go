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
)

// Version states in projection_versions.
const (
	StateLive     = "live"     // readers use this version's tables
	StateBuilding = "building" // being rebuilt from offset 0 beside the live one
	StateRetired  = "retired"  // replaced; tables kept until an operator drops them
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
	rows, err := tx.Query(ctx, `SELECT topic, log_partition, next_offset FROM `+checkpointsTable+
		` WHERE projection = ? AND version = ?`, name, version)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cp := checkpoint{}
	for rows.Next() {
		var k tp
		var off int64
		if err := rows.Scan(&k.topic, &k.part, &off); err != nil {
			return nil, err
		}
		cp[k] = off
	}
	return cp, rows.Err()
}

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
	rows, err := tx.Query(ctx, `SELECT projection, version, state FROM `+versionsTable+` ORDER BY projection, version`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []VersionState
	for rows.Next() {
		var v VersionState
		if err := rows.Scan(&v.Projection, &v.Version, &v.State); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
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
	return t.UTC().Format(timeLayout)
}

// ParseTime reads a time written by [FormatTime].
func ParseTime(s string) (time.Time, error) {
	return time.Parse(timeLayout, s)
}

// pos renders a position for errors.
func pos(topic string, part int32, off int64) string {
	return FormatPosition(topics.Position{Topic: topic, Partition: part, Offset: off})
}
