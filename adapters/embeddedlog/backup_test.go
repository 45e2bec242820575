package embeddedlog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/topics"
)

// TestBackupIsACut takes backups while writers append batches that span
// partitions to one topic and then, causally after each, a record to
// another topic. Every backup opens without a torn tail or damage, holds
// byte for byte the original's records at their positions, every batch
// whole or not at all, and a second topic's record only with the batch
// appended before it. A consumer group resumes at or before its commit.
func TestBackupIsACut(t *testing.T) {
	const (
		batchTopic = topics.TopicBridge // several partitions
		afterTopic = topics.TopicChain
		writers    = 3
		batchSize  = 5
		backups    = 6
	)
	dir := t.TempDir()
	l := mustOpen(t, dir, WithSegmentBytes(16<<10)) // segments roll during the backups
	ctx := context.Background()

	// A consumer group with a commit, before and during the backups.
	sub, err := l.Subscribe(ctx, afterTopic, "claims")
	if err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	stopWriters := func() { stop.Store(true); wg.Wait() }
	defer stopWriters() // also when the test fails early: no writer outlives it
	for w := range writers {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				msgs := make([]topics.Message, batchSize)
				for j := range msgs {
					msgs[j] = topics.Message{Key: fmt.Appendf(nil, "w%d-%d-%d", w, i, j), Value: fmt.Appendf(nil, "batch w%d-%d %d/%d", w, i, j, batchSize)}
				}
				if _, err := l.Append(ctx, batchTopic, msgs...); err != nil {
					t.Error(err)
					return
				}
				if _, err := l.Append(ctx, afterTopic, topics.Message{Key: fmt.Appendf(nil, "w%d", w), Value: fmt.Appendf(nil, "after w%d-%d", w, i)}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	committed, committedPart := int64(-1), int32(0)
	var dirs []string
	// Each backup waits for more records: a busy machine may run the
	// writers slowly, and a backup of nothing new shows nothing.
	appended := func() int64 {
		var n int64
		for _, topic := range []string{batchTopic, afterTopic} {
			ends, err := l.EndOffsets(ctx, topic)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ends {
				n += e
			}
		}
		return n
	}
	for b := range backups {
		for deadline := time.Now().Add(30 * time.Second); appended() < int64(b+1)*300; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("backup %d: the writers appended only %d records in 30 s", b, appended())
			}
		}
		if b == 2 {
			fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			rec, err := sub.Fetch(fctx)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			if err := sub.Commit(ctx, rec); err != nil {
				t.Fatal(err)
			}
			committed, committedPart = rec.Offset+1, rec.Partition
		}
		d := filepath.Join(t.TempDir(), fmt.Sprintf("backup-%d", b))
		st, err := l.Backup(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		if st.Records == 0 || st.Segments == 0 {
			t.Fatalf("backup %d: %+v", b, st)
		}
		dirs = append(dirs, d)
	}
	if _, err := l.Backup(ctx, dirs[0]); !errors.Is(err, ErrBackupExists) {
		t.Fatalf("backup over an existing one: %v", err)
	}
	stopWriters()
	sub.Close()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	orig := mustOpen(t, dir)
	defer orig.Close()

	for b, d := range dirs {
		if _, err := os.Stat(d + ".partial"); err == nil {
			t.Fatalf("backup %d left its partial directory", b)
		}
		m := &countingMetrics{}
		bl := mustOpen(t, d, WithMetrics(m))
		if m.truncated != 0 || m.corrupt != 0 {
			t.Fatalf("backup %d opened with %d torn tails and %d damaged files: not a cut", b, m.truncated, m.corrupt)
		}
		batches := map[string]int{} // w-i → messages present
		var records int
		for _, topic := range []string{batchTopic, afterTopic} {
			ends, err := bl.EndOffsets(ctx, topic)
			if err != nil {
				t.Fatal(err)
			}
			for p := range ends {
				got, want := readAll(t, bl, topic, int32(p)), readAll(t, orig, topic, int32(p))
				if len(got) > len(want) {
					t.Fatalf("backup %d: %s/%d holds %d records, the log %d", b, topic, p, len(got), len(want))
				}
				for i, r := range got {
					if !bytes.Equal(r.Value, want[i].Value) || !bytes.Equal(r.Key, want[i].Key) {
						t.Fatalf("backup %d: %s/%d@%d differs from the log", b, topic, p, i)
					}
					var w, n, j, size int
					if topic == batchTopic {
						fmt.Sscanf(string(r.Value), "batch w%d-%d %d/%d", &w, &n, &j, &size)
						batches[fmt.Sprintf("%d-%d", w, n)]++
					}
				}
				records += len(got)
			}
		}
		for k, n := range batches {
			if n != batchSize {
				t.Fatalf("backup %d: batch %s has %d of its %d messages", b, k, n, batchSize)
			}
		}
		ends, _ := bl.EndOffsets(ctx, afterTopic)
		for p := range ends {
			for _, r := range readAll(t, bl, afterTopic, int32(p)) {
				var w, i int
				fmt.Sscanf(string(r.Value), "after w%d-%d", &w, &i)
				if batches[fmt.Sprintf("%d-%d", w, i)] != batchSize {
					t.Fatalf("backup %d holds %q without the batch appended before it", b, r.Value)
				}
			}
		}
		if records == 0 {
			t.Fatalf("backup %d is empty", b)
		}
		// The group's offsets came along, never past the cut: those of
		// the commit before this backup, or none before it.
		gb, err := os.ReadFile(filepath.Join(d, afterTopic, "groups", "claims.json"))
		var gf groupFile
		switch {
		case b < 2 && errors.Is(err, os.ErrNotExist):
		case err != nil:
			t.Fatalf("backup %d: group offsets: %v", b, err)
		case json.Unmarshal(gb, &gf) != nil || gf.Next[committedPart] != map[bool]int64{true: committed, false: 0}[b >= 2]:
			t.Fatalf("backup %d: group offsets %s, want partition %d at %d", b, gb, committedPart, committed)
		}
		for p, next := range gf.Next {
			if end := ends[p]; next > end {
				t.Fatalf("backup %d: group offset %d past the end %d of partition %d", b, next, end, p)
			}
		}
		bl.Close()
	}
}

// TestBackupFindsDamage: damage inside a sealed segment, which Open does
// not read and the running log would find only when the records are
// read, fails the backup with the file (and so is found at every backup
// instead of carried into it); no backup directory is left.
func TestBackupFindsDamage(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir, WithSegmentBytes(4<<10))
	appendEach(t, l, 0, 200, vlen)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	sealed := segPath(dir, single, 0, 0)
	b, err := os.ReadFile(sealed)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(sealed, b, 0o644); err != nil {
		t.Fatal(err)
	}
	l = mustOpen(t, dir, WithSegmentBytes(4<<10)) // the sealed segment's index file spares reading it
	defer l.Close()
	to := filepath.Join(t.TempDir(), "backup")
	_, err = l.Backup(context.Background(), to)
	if !errors.Is(err, topics.ErrCorrupt) || !strings.Contains(err.Error(), filepath.Base(sealed)) {
		t.Fatalf("backup of a damaged log: %v, want ErrCorrupt naming %s", err, filepath.Base(sealed))
	}
	for _, d := range []string{to, to + ".partial"} {
		if _, err := os.Stat(d); err == nil {
			t.Fatalf("%s left behind", d)
		}
	}
	// An undamaged log backs up.
	clean := mustOpen(t, t.TempDir())
	defer clean.Close()
	appendEach(t, clean, 0, 10, vlen)
	if st, err := clean.Backup(context.Background(), filepath.Join(t.TempDir(), "ok")); err != nil || st.Records != 10 {
		t.Fatalf("backup of a clean log: %+v %v", st, err)
	}
}

// cancelAfter is a context that reports itself cancelled from its
// (n+1)th Err on, so a test can stop a scan at every point in turn.
type cancelAfter struct {
	context.Context
	n, calls atomic.Int64
}

func (c *cancelAfter) Err() error {
	if c.calls.Add(1) > c.n.Load() {
		return context.Canceled
	}
	return nil
}

// TestBackupStopsWhenCancelled cancels a backup at every point where it
// looks at its context, the check's scan among them (a relay's shutdown
// must not wait for a check of a large log): each stops with the
// context's error and leaves no directory behind; then one runs through.
func TestBackupStopsWhenCancelled(t *testing.T) {
	l := mustOpen(t, t.TempDir(), WithSegmentBytes(4<<10))
	defer l.Close()
	appendEach(t, l, 0, 200, vlen)
	inCheck := 0
	for n := int64(0); ; n++ {
		if n > 1000 {
			t.Fatal("the backup never ran through")
		}
		ctx := &cancelAfter{Context: context.Background()}
		ctx.n.Store(n)
		to := filepath.Join(t.TempDir(), "backup")
		st, err := l.Backup(ctx, to)
		for _, d := range []string{to + ".partial"} {
			if _, serr := os.Stat(d); serr == nil {
				t.Fatalf("cancelled after %d: %s left behind", n, d)
			}
		}
		if err == nil {
			if st.Records != 200 {
				t.Fatalf("backup holds %d records, want 200", st.Records)
			}
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled after %d: %v, want context.Canceled", n, err)
		}
		if _, serr := os.Stat(to); serr == nil {
			t.Fatalf("cancelled after %d: %s written", n, to)
		}
		if strings.Contains(err.Error(), "does not open") {
			inCheck++
		}
	}
	if inCheck < 2 {
		t.Fatalf("the check's scan stopped at %d points, want one per segment (several)", inCheck)
	}
}

// TestOpenStopsWhenCancelled: an Open whose context is done stops before
// its scan and changes nothing; the log then opens whole.
func TestOpenStopsWhenCancelled(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir, WithSegmentBytes(4<<10))
	appendEach(t, l, 0, 200, vlen)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Open(dir, WithSegmentBytes(4<<10), WithFullScan(true), WithContext(ctx)); !errors.Is(err, context.Canceled) {
		t.Fatalf("open with a cancelled context: %v, want context.Canceled", err)
	}
	l = mustOpen(t, dir, WithSegmentBytes(4<<10), WithFullScan(true))
	defer l.Close()
	var n int64
	for _, tp := range l.topics {
		for _, p := range tp.parts {
			n += p.end()
		}
	}
	if n != 200 {
		t.Fatalf("the log holds %d records after the stopped open, want 200", n)
	}
}
