package kafkalog

import (
	"context"
	"fmt"
	"sort"

	"github.com/segmentio/kafka-go"

	"github.com/bridgelog/bridgelog/topics"
)

// CommittedOffsets returns, per partition of topic, the offset group will
// resume at; -1 where the group has committed nothing.
func (l *Log) CommittedOffsets(ctx context.Context, group, topic string) ([]int64, error) {
	if l.closed.Load() {
		return nil, topics.ErrClosed
	}
	ctx, cancel := context.WithTimeout(ctx, l.cfg.RequestTimeout)
	defer cancel()
	ids, err := l.partitions(ctx, topic)
	if err != nil {
		return nil, err
	}
	res, err := l.client.OffsetFetch(ctx, &kafka.OffsetFetchRequest{GroupID: group, Topics: map[string][]int{topic: ids}})
	if err != nil {
		return nil, fmt.Errorf("kafkalog: committed offsets of group %s on %s: %w", group, topic, err)
	}
	if res.Error != nil {
		return nil, fmt.Errorf("kafkalog: committed offsets of group %s on %s: %w", group, topic, res.Error)
	}
	out := make([]int64, len(ids))
	for i := range out {
		out[i] = -1
	}
	for _, p := range res.Topics[topic] {
		if p.Error != nil {
			return nil, fmt.Errorf("kafkalog: committed offset of group %s on %s/%d: %w", group, topic, p.Partition, p.Error)
		}
		if p.Partition >= 0 && p.Partition < len(out) {
			out[p.Partition] = p.CommittedOffset
		}
	}
	return out, nil
}

// ResetGroupOffsets moves group's committed offsets on topic: each member
// that joins afterwards resumes partition p at offsets[p]. It is the
// operator's replay tool ("re-drive handlers from offset N").
//
// Kafka accepts it only while the group has no active member (stop the
// workers first); otherwise it fails with the broker's error, typically
// UnknownMemberId or RebalanceInProgress.
func (l *Log) ResetGroupOffsets(ctx context.Context, group, topic string, offsets map[int32]int64) error {
	if l.closed.Load() {
		return topics.ErrClosed
	}
	ctx, cancel := context.WithTimeout(ctx, l.cfg.RequestTimeout)
	defer cancel()
	ids, err := l.partitions(ctx, topic)
	if err != nil {
		return err
	}
	commits := make([]kafka.OffsetCommit, 0, len(offsets))
	for p, o := range offsets {
		if p < 0 || int(p) >= len(ids) {
			return fmt.Errorf("%w: %s/%d, topic has %d", topics.ErrBadPartition, topic, p, len(ids))
		}
		if o < 0 {
			return fmt.Errorf("%w: %s/%d offset %d", topics.ErrOffsetRange, topic, p, o)
		}
		commits = append(commits, kafka.OffsetCommit{Partition: int(p), Offset: o})
	}
	sort.Slice(commits, func(i, j int) bool { return commits[i].Partition < commits[j].Partition })
	// Generation -1 and no member id: a commit from outside the group,
	// which the coordinator takes only while the group is empty.
	res, err := l.client.OffsetCommit(ctx, &kafka.OffsetCommitRequest{
		GroupID:      group,
		GenerationID: -1,
		Topics:       map[string][]kafka.OffsetCommit{topic: commits},
	})
	if err != nil {
		return fmt.Errorf("kafkalog: reset group %s on %s: %w", group, topic, err)
	}
	for _, p := range res.Topics[topic] {
		if p.Error != nil {
			return fmt.Errorf("kafkalog: reset group %s on %s/%d: %w", group, topic, p.Partition, p.Error)
		}
	}
	l.log.Info("group offsets reset", "group", group, "topic", topic, "offsets", offsets)
	return nil
}
