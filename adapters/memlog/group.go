package memlog

import (
	"context"
	"fmt"
	"slices"

	"github.com/bridgelog/bridgelog/topics"
)

// Consumer groups follow the embedded engine: members split the topic's
// partitions round-robin in join order and are rebalanced when one joins
// or leaves; a partition a member keeps continues where it was, one it
// gains starts at the group's committed offset. Committed offsets live
// as long as the Log.

// fetchBatch is how many records a member copies out of a partition at once.
const fetchBatch = 512

// group is one consumer group on one topic, guarded by the topic's mu.
type group struct {
	name    string
	next    []int64 // committed: the offset to resume at, per partition
	members []*subscription
	seq     int // last member id
}

// subscription is one member of a group. Its fields after id are guarded
// by the topic's mu.
type subscription struct {
	l  *Log
	t  *topicLog
	g  *group
	id int

	closed bool
	owned  []int32
	pos    []int64         // next offset to hand out per partition; -1 if not owned
	buf    []topics.Record // copied, not handed out yet: one owned partition from its pos on
	rr     int             // round-robin start over owned
}

// Subscribe joins group on topic. It returns with the member's partitions
// assigned; a new group starts at offset 0.
func (l *Log) Subscribe(ctx context.Context, topic, group string) (topics.Subscription, error) {
	t, err := l.topic(ctx, topic)
	if err != nil {
		return nil, err
	}
	if group == "" {
		return nil, fmt.Errorf("memlog: subscribe to %s: %w: empty name", topic, ErrBadGroup)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if l.closed.Load() {
		return nil, topics.ErrClosed
	}
	g := t.groups[group]
	if g == nil {
		g = t.newGroup(group)
	}
	g.seq++
	s := &subscription{l: l, t: t, g: g, id: g.seq, pos: make([]int64, len(t.parts))}
	for p := range s.pos {
		s.pos[p] = -1
	}
	g.members = append(g.members, s)
	t.logger.Debug("memlog: member joined", "topic", topic, "group", group, "member", s.id, "members", len(g.members))
	t.rebalance(g)
	return s, nil
}

func (t *topicLog) newGroup(name string) *group {
	g := &group{name: name, next: make([]int64, len(t.parts))}
	t.groups[name] = g
	return g
}

// rebalance assigns partition p to member p mod n (members in join
// order). Called with t.mu held.
func (t *topicLog) rebalance(g *group) {
	n := len(g.members)
	for i, m := range g.members {
		var owned []int32
		for p := i; p < len(t.parts); p += n {
			owned = append(owned, int32(p))
		}
		if slices.Equal(owned, m.owned) {
			continue
		}
		pos := make([]int64, len(t.parts))
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
		m.owned, m.pos, m.buf, m.rr = owned, pos, nil, 0
		t.logger.Debug("memlog: partitions assigned", "topic", t.name, "group", g.name,
			"member", m.id, "partitions", fmt.Sprint(owned))
	}
	t.broadcast()
}

// Fetch returns the next record of a partition this member owns, waiting
// for an append if there is none.
func (s *subscription) Fetch(ctx context.Context) (topics.Record, error) {
	t := s.t
	for {
		if err := ctx.Err(); err != nil {
			return topics.Record{}, err
		}
		t.mu.Lock()
		if s.closed || s.l.closed.Load() {
			t.mu.Unlock()
			return topics.Record{}, topics.ErrClosed
		}
		if len(s.buf) == 0 {
			s.fill()
		}
		if len(s.buf) > 0 {
			r := s.buf[0]
			s.buf = s.buf[1:]
			s.pos[r.Partition] = r.Offset + 1
			t.mu.Unlock()
			return r, nil
		}
		wait := t.waitChan()
		t.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return topics.Record{}, ctx.Err()
		case <-s.l.done:
			return topics.Record{}, topics.ErrClosed
		}
	}
}

// fill copies the next records of the first owned partition, in
// round-robin order, that has any. Called with t.mu held.
func (s *subscription) fill() {
	for k := range s.owned {
		p := s.owned[(s.rr+k)%len(s.owned)]
		from := s.pos[p]
		ents, err := s.t.span(p, from, fetchBatch)
		if err != nil || len(ents) == 0 {
			// err: a committed offset past the end, which Commit refuses.
			continue
		}
		s.rr = (s.rr + k + 1) % len(s.owned)
		s.buf = s.t.records(p, from, ents)
		return
	}
}

// Commit records that recs are processed: the group resumes after the
// highest committed offset of each partition. Every record is checked
// before any offset moves. Committing a partition this member does not own
// is an error wrapping [ErrNotAssigned].
func (s *subscription) Commit(ctx context.Context, recs ...topics.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t, g := s.t, s.g
	t.mu.Lock()
	defer t.mu.Unlock()
	if s.closed || s.l.closed.Load() {
		return topics.ErrClosed
	}
	for _, r := range recs {
		switch {
		case r.Topic != t.name:
			return fmt.Errorf("memlog: commit of a %s record to a %s group: %w", r.Topic, t.name, topics.ErrUnknownTopic)
		case r.Partition < 0 || int(r.Partition) >= len(t.parts):
			return fmt.Errorf("memlog: commit: %w: %s/%d", topics.ErrBadPartition, t.name, r.Partition)
		case s.pos[r.Partition] < 0:
			return fmt.Errorf("memlog: commit %s/%d offset %d for group %s: %w", t.name, r.Partition, r.Offset, g.name, ErrNotAssigned)
		case r.Offset < 0 || r.Offset >= int64(len(t.parts[r.Partition])):
			return fmt.Errorf("memlog: commit %s/%d: %w: offset %d", t.name, r.Partition, topics.ErrOffsetRange, r.Offset)
		}
	}
	for _, r := range recs {
		g.next[r.Partition] = max(g.next[r.Partition], r.Offset+1)
	}
	return nil
}

// Close leaves the group; the remaining members take over its partitions
// from the group's committed offsets. Closing twice is not an error.
func (s *subscription) Close() error {
	t, g := s.t, s.g
	t.mu.Lock()
	defer t.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.buf = nil
	g.members = slices.DeleteFunc(g.members, func(m *subscription) bool { return m == s })
	t.logger.Debug("memlog: member left", "topic", t.name, "group", g.name, "member", s.id, "members", len(g.members))
	t.rebalance(g) // also wakes this member's Fetch
	return nil
}
