package embeddedlog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/bridgelog/bridgelog/adapters/ownerfs"
	"github.com/bridgelog/bridgelog/topics"
)

// Consumer groups live inside this process: members of a group split the
// topic's partitions round-robin over the live members in join order, and
// are rebalanced when one joins or leaves. A partition a member gains
// starts at the group's committed offset; one it keeps continues where
// the member was. Committed offsets are a small JSON file per group,
// replaced atomically (write, fsync, rename, fsync dir) on every Commit.

// groupFormat is the layout version of a group's offsets file.
const groupFormat = 1

// maxGroupName bounds a group name (it becomes a file name).
const maxGroupName = 128

// fetchBatch is how many records a member reads from a partition at once.
const fetchBatch = 512

type groupKey struct{ topic, name string }

// group is one consumer group on one topic. Fields are guarded by Log.gmu
// except where noted.
type group struct {
	t       *topicLog
	name    string
	path    string
	next    []int64 // committed: the offset to resume at, per partition
	members []*subscription
	seq     int // member ids

	commitMu sync.Mutex // serialises writes of the offsets file
}

// subscription is one member of a group.
type subscription struct {
	l  *Log
	g  *group
	id int

	// guarded by Log.gmu
	closed bool
	owned  []int32
	pos    []int64 // next offset to hand out per partition; -1 if not owned
	gen    int     // bumped whenever owned changes

	fmu    sync.Mutex // one Fetch at a time; guards the fields below
	buf    []topics.Record
	bufGen int
	rr     int // round-robin start over owned
}

type groupFile struct {
	Format int     `json:"format"`
	Topic  string  `json:"topic"`
	Group  string  `json:"group"`
	Next   []int64 `json:"next"`
}

// Subscribe joins group on topic. It returns with the member's partitions
// assigned; a new group starts at offset 0.
func (l *Log) Subscribe(ctx context.Context, topic, groupName string) (topics.Subscription, error) {
	if l.readOnly {
		// A group's offsets are written on every Commit.
		return nil, fmt.Errorf("embeddedlog: subscribe to %s: %w", topic, ErrReadOnly)
	}
	t, err := l.enterTopic(ctx, topic)
	if err != nil {
		return nil, err
	}
	defer l.leave()
	fname, err := groupFileName(groupName)
	if err != nil {
		return nil, err
	}
	l.gmu.Lock()
	defer l.gmu.Unlock()
	key := groupKey{topic, groupName}
	g := l.groups[key]
	if g == nil {
		g, err = l.loadGroup(t, groupName, filepath.Join(l.dir, topic, "groups", fname))
		if err != nil {
			return nil, err
		}
		l.groups[key] = g
	}
	g.seq++
	s := &subscription{l: l, g: g, id: g.seq, pos: make([]int64, len(t.parts))}
	for i := range s.pos {
		s.pos[i] = -1
	}
	g.members = append(g.members, s)
	l.cfg.logger.Info("embeddedlog: member joined", "topic", topic, "group", groupName, "member", s.id, "members", len(g.members))
	g.rebalance()
	return s, nil
}

// groupFileName turns a group name into a safe file name.
func groupFileName(name string) (string, error) {
	if name == "" || len(name) > maxGroupName {
		return "", fmt.Errorf("embeddedlog: %w: %q (1..%d bytes)", ErrBadGroup, name, maxGroupName)
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || (c == '.' && i > 0)
		if ok {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String() + ".json", nil
}

func (l *Log) loadGroup(t *topicLog, name, path string) (*group, error) {
	g := &group{t: t, name: name, path: path, next: make([]int64, len(t.parts))}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return g, nil
	}
	if err != nil {
		return nil, fmt.Errorf("embeddedlog: read group offsets: %w", err)
	}
	var gf groupFile
	if err := json.Unmarshal(b, &gf); err != nil {
		return nil, &FileError{File: path, Offset: -1, Err: fmt.Errorf("%w: group offsets: %v", topics.ErrCorrupt, err)}
	}
	switch {
	case gf.Format > groupFormat:
		return nil, &FileError{File: path, Offset: -1, Err: fmt.Errorf("%w: group offsets format %d, this binary reads up to %d", ErrFormatTooNew, gf.Format, groupFormat)}
	case gf.Format != groupFormat || gf.Topic != t.name || gf.Group != name || len(gf.Next) != len(t.parts):
		return nil, &FileError{File: path, Offset: -1, Err: fmt.Errorf("%w: group offsets file is for %s/%s format %d with %d partitions",
			topics.ErrCorrupt, gf.Topic, gf.Group, gf.Format, len(gf.Next))}
	}
	for p, off := range gf.Next {
		end := t.parts[p].end()
		switch {
		case off < 0:
			return nil, &FileError{File: path, Offset: -1, Err: fmt.Errorf("%w: partition %d committed offset %d", topics.ErrCorrupt, p, off)}
		case off > end:
			// Only possible after an operator truncated the log.
			l.cfg.logger.Warn("embeddedlog: committed offset past the end, resuming at the end",
				"topic", t.name, "group", name, "partition", p, "committed", off, "end", end)
			off = end
		}
		g.next[p] = off
	}
	return g, nil
}

// rebalance assigns partition p to member p mod n (members in join
// order). Called with Log.gmu held.
func (g *group) rebalance() {
	n := len(g.members)
	for i, m := range g.members {
		var owned []int32
		for p := i; p < len(g.t.parts); p += n {
			owned = append(owned, int32(p))
		}
		if slices.Equal(owned, m.owned) {
			continue
		}
		pos := make([]int64, len(g.t.parts))
		for p := range pos {
			pos[p] = -1
		}
		for _, p := range owned {
			if m.pos[p] >= 0 {
				pos[p] = m.pos[p] // kept: continue where this member was
			} else {
				pos[p] = g.next[p] // gained: resume after the last commit
			}
		}
		m.owned, m.pos = owned, pos
		m.gen++
		g.t.log.cfg.logger.Info("embeddedlog: partitions assigned", "topic", g.t.name, "group", g.name,
			"member", m.id, "partitions", fmt.Sprint(owned))
	}
	g.t.broadcast()
}

// Fetch returns the next record of a partition this member owns, waiting
// for an append if there is none.
func (s *subscription) Fetch(ctx context.Context) (topics.Record, error) {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	l, t := s.l, s.g.t
	for {
		if err := ctx.Err(); err != nil {
			return topics.Record{}, err
		}
		if l.closed.Load() {
			return topics.Record{}, topics.ErrClosed
		}
		wait := t.waitChan()
		l.gmu.Lock()
		if s.closed {
			l.gmu.Unlock()
			return topics.Record{}, topics.ErrClosed
		}
		if s.bufGen != s.gen {
			s.buf = nil // ownership changed: never hand out a partition we lost
		}
		if len(s.buf) > 0 {
			r := s.buf[0]
			s.buf = s.buf[1:]
			if s.pos[r.Partition] == r.Offset {
				s.pos[r.Partition] = r.Offset + 1
				l.gmu.Unlock()
				return r, nil
			}
			s.buf = nil
			l.gmu.Unlock()
			continue
		}
		pick, from := int32(-1), int64(0)
		for k := range s.owned {
			p := s.owned[(s.rr+k)%len(s.owned)]
			if s.pos[p] < t.parts[p].end() {
				pick, from = p, s.pos[p]
				s.rr = (s.rr + k + 1) % len(s.owned)
				break
			}
		}
		gen := s.gen
		l.gmu.Unlock()
		if pick < 0 {
			select {
			case <-wait:
			case <-ctx.Done():
				return topics.Record{}, ctx.Err()
			case <-l.done:
				return topics.Record{}, topics.ErrClosed
			}
			continue
		}
		if err := l.enter(); err != nil {
			return topics.Record{}, err
		}
		recs, err := t.parts[pick].read(from, fetchBatch, nil)
		l.leave()
		if err != nil {
			return topics.Record{}, fmt.Errorf("embeddedlog: fetch %s/%d for group %s: %w", t.name, pick, s.g.name, err)
		}
		l.gmu.Lock()
		if s.gen == gen && s.pos[pick] == from {
			s.buf, s.bufGen = recs, gen
		}
		l.gmu.Unlock()
	}
}

// Commit records that recs are processed: the group resumes after the
// highest committed offset of each partition. It returns once the offsets
// file is fsynced. Committing a partition this member no longer owns is an
// error wrapping [ErrNotAssigned].
func (s *subscription) Commit(ctx context.Context, recs ...topics.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(recs) == 0 {
		return nil
	}
	l, g := s.l, s.g
	g.commitMu.Lock()
	defer g.commitMu.Unlock()
	l.gmu.Lock()
	if s.closed || l.closed.Load() {
		l.gmu.Unlock()
		return topics.ErrClosed
	}
	next := slices.Clone(g.next)
	changed := false
	for _, r := range recs {
		var err error
		switch {
		case r.Topic != g.t.name:
			err = fmt.Errorf("embeddedlog: commit of a %s record to a %s group: %w", r.Topic, g.t.name, topics.ErrUnknownTopic)
		case r.Partition < 0 || int(r.Partition) >= len(next):
			err = fmt.Errorf("embeddedlog: commit: %w: %d", topics.ErrBadPartition, r.Partition)
		case s.pos[r.Partition] < 0:
			err = fmt.Errorf("embeddedlog: commit %s/%d offset %d for group %s: %w", g.t.name, r.Partition, r.Offset, g.name, ErrNotAssigned)
		case r.Offset < 0 || r.Offset >= g.t.parts[r.Partition].end():
			err = fmt.Errorf("embeddedlog: commit %s/%d: %w: offset %d", g.t.name, r.Partition, topics.ErrOffsetRange, r.Offset)
		}
		if err != nil {
			l.gmu.Unlock()
			return err
		}
		if r.Offset+1 > next[r.Partition] {
			next[r.Partition] = r.Offset + 1
			changed = true
		}
	}
	l.gmu.Unlock()
	if !changed {
		return nil
	}
	if err := l.enter(); err != nil {
		return err
	}
	err := writeGroupFile(g.path, groupFile{Format: groupFormat, Topic: g.t.name, Group: g.name, Next: next})
	l.leave()
	if err != nil {
		return fmt.Errorf("embeddedlog: commit group %s: %w", g.name, err)
	}
	l.gmu.Lock()
	for p, off := range next {
		g.next[p] = max(g.next[p], off)
	}
	l.gmu.Unlock()
	return nil
}

// writeGroupFile replaces path atomically and durably.
func writeGroupFile(path string, gf groupFile) error {
	b, err := json.Marshal(gf)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := mkdirDurable(dir); err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, ownerfs.FileMode)
	if err != nil {
		return fmt.Errorf("create %s: %w", tmp, err)
	}
	_, werr := f.Write(append(b, '\n'))
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp)
		return &FileError{File: tmp, Offset: -1, Err: err}
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	return syncDir(dir)
}

// Close leaves the group; the remaining members take over its partitions
// from the group's committed offsets.
func (s *subscription) Close() error {
	l, g := s.l, s.g
	l.gmu.Lock()
	defer l.gmu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	g.members = slices.DeleteFunc(g.members, func(m *subscription) bool { return m == s })
	l.cfg.logger.Info("embeddedlog: member left", "topic", g.t.name, "group", g.name, "member", s.id, "members", len(g.members))
	g.rebalance() // also wakes this member's Fetch
	return nil
}
