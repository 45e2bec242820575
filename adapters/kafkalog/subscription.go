package kafkalog

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/bridgelog/bridgelog/topics"
)

// subscription is one consumer-group member: a kafka-go Reader with a
// GroupID. Commits are synchronous (CommitInterval 0) so that a Commit
// that returned nil survives a crash right after it.
type subscription struct {
	l      *Log
	topic  string
	group  string
	reader *kafka.Reader
	log    *slog.Logger

	mu        sync.Mutex
	committed map[int]int64 // highest offset committed per partition, +1
	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

// Subscribe implements [topics.Log]. A group with no committed offset for
// a partition starts at its first record: a new projection sees the whole
// history.
func (l *Log) Subscribe(ctx context.Context, topic, group string) (topics.Subscription, error) {
	if l.closed.Load() {
		return nil, topics.ErrClosed
	}
	if group == "" {
		return nil, fmt.Errorf("%w: empty consumer group", ErrConfig)
	}
	rctx, cancel := context.WithTimeout(ctx, l.cfg.RequestTimeout)
	defer cancel()
	if _, err := l.partitions(rctx, topic); err != nil {
		return nil, err
	}
	// A client id of its own lets Subscribe find this member in the
	// group's description.
	memberClient := l.cfg.ClientID + "-" + randomSuffix()
	log := l.log.With("topic", topic, "group", group, "member_client_id", memberClient)
	rc := kafka.ReaderConfig{
		Brokers: l.cfg.Brokers,
		GroupID: group,
		Topic:   topic,
		Dialer: &kafka.Dialer{
			ClientID:  memberClient,
			Timeout:   l.cfg.DialTimeout,
			DualStack: true,
		},
		MinBytes:          1,
		MaxBytes:          l.cfg.FetchMaxBytes,
		MaxWait:           l.cfg.FetchMaxWait,
		ReadBatchTimeout:  l.cfg.RequestTimeout,
		ReadLagInterval:   -1,
		HeartbeatInterval: l.cfg.HeartbeatInterval,
		SessionTimeout:    l.cfg.SessionTimeout,
		RebalanceTimeout:  l.cfg.RebalanceTimeout,
		JoinGroupBackoff:  l.cfg.JoinGroupBackoff,
		CommitInterval:    0,
		StartOffset:       kafka.FirstOffset,
		ReadBackoffMin:    10 * time.Millisecond,
		ReadBackoffMax:    l.cfg.FetchMaxWait,
		ErrorLogger: kafka.LoggerFunc(func(msg string, args ...any) {
			log.Warn("kafka-go reader", "detail", fmt.Sprintf(msg, args...))
		}),
	}
	if err := rc.Validate(); err != nil { // NewReader panics on what Validate refuses
		return nil, fmt.Errorf("%w: reader: %w", ErrConfig, err)
	}
	s := &subscription{
		l: l, topic: topic, group: group, log: log,
		committed: make(map[int]int64),
		reader:    kafka.NewReader(rc),
	}
	l.mu.Lock()
	l.subs[s] = struct{}{}
	l.mu.Unlock()
	// The Reader joins in the background; wait until the group is stable
	// with this member in it, so that once Subscribe returns, records
	// appended afterwards go to the members that hold their partitions
	// instead of a generation that is about to end.
	wctx, wcancel := context.WithTimeout(ctx, l.cfg.RebalanceTimeout+l.cfg.SessionTimeout+l.cfg.RequestTimeout)
	defer wcancel()
	if err := l.waitStable(wctx, group, memberClient); err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("kafkalog: join group %s on %s: %w", group, topic, err)
	}
	log.Info("joined consumer group")
	return s, nil
}

// waitStable polls the group's description until it is Stable and holds
// the member whose client id is clientID.
func (l *Log) waitStable(ctx context.Context, group, clientID string) error {
	last := "no description yet"
	for delay := 10 * time.Millisecond; ; delay = min(2*delay, 200*time.Millisecond) {
		res, err := l.client.DescribeGroups(ctx, &kafka.DescribeGroupsRequest{GroupIDs: []string{group}})
		switch {
		case err != nil:
			last = err.Error()
		case len(res.Groups) != 1:
			last = fmt.Sprintf("%d groups described", len(res.Groups))
		case res.Groups[0].Error != nil:
			last = res.Groups[0].Error.Error()
		default:
			g := res.Groups[0]
			last = fmt.Sprintf("state %s with %d members", g.GroupState, len(g.Members))
			if g.GroupState == "Stable" {
				for _, m := range g.Members {
					if m.ClientID == clientID {
						return nil
					}
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %s)", ctx.Err(), last)
		case <-time.After(delay):
		}
	}
}

func randomSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand does not fail on Linux
	return hex.EncodeToString(b[:])
}

// Fetch implements [topics.Subscription].
func (s *subscription) Fetch(ctx context.Context) (topics.Record, error) {
	// The reader hands out what it buffered even after Close; a closed
	// member must not process records its partitions' new owner gets.
	if s.closed.Load() {
		return topics.Record{}, topics.ErrClosed
	}
	m, err := s.reader.FetchMessage(ctx)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return topics.Record{}, topics.ErrClosed
		}
		return topics.Record{}, fmt.Errorf("kafkalog: fetch %s group %s: %w", s.topic, s.group, err)
	}
	return topics.Record{
		Topic: m.Topic, Partition: int32(m.Partition), Offset: m.Offset,
		Key: m.Key, Value: m.Value, Time: m.Time,
	}, nil
}

// Commit implements [topics.Subscription]. Only the highest record of each
// partition is sent, and never one below what this member already
// committed: Kafka keeps one offset per partition and would otherwise move
// back.
func (s *subscription) Commit(ctx context.Context, recs ...topics.Record) error {
	high := make(map[int]int64)
	for _, r := range recs {
		if r.Topic != s.topic {
			return fmt.Errorf("kafkalog: commit of a %s record on a %s subscription", r.Topic, s.topic)
		}
		if o, ok := high[int(r.Partition)]; !ok || r.Offset > o {
			high[int(r.Partition)] = r.Offset
		}
	}
	if s.closed.Load() {
		return topics.ErrClosed
	}
	s.mu.Lock()
	msgs := make([]kafka.Message, 0, len(high))
	for p, o := range high {
		if next, ok := s.committed[p]; ok && o+1 <= next {
			continue
		}
		msgs = append(msgs, kafka.Message{Topic: s.topic, Partition: p, Offset: o})
	}
	s.mu.Unlock()
	if len(msgs) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.l.cfg.RequestTimeout)
	defer cancel()
	if err := s.reader.CommitMessages(ctx, msgs...); err != nil {
		if errors.Is(err, io.ErrClosedPipe) {
			return topics.ErrClosed
		}
		return fmt.Errorf("kafkalog: commit %s group %s: %w", s.topic, s.group, err)
	}
	s.mu.Lock()
	for _, m := range msgs {
		if m.Offset+1 > s.committed[m.Partition] {
			s.committed[m.Partition] = m.Offset + 1
		}
	}
	s.mu.Unlock()
	return nil
}

// Close implements [topics.Subscription]: the reader leaves the group, so
// its partitions move to the other members without waiting for the
// session timeout.
func (s *subscription) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		s.closeErr = s.reader.Close()
		s.l.mu.Lock()
		delete(s.l.subs, s)
		s.l.mu.Unlock()
		s.log.Info("left consumer group")
	})
	return s.closeErr
}
