package signing

import (
	"context"
	"fmt"

	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/topics"
)

// replayBatch is how many records one read of the log returns.
const replayBatch = 1024

// Replay reads every fact of the signing topic of lg and hands it to
// apply, partition after partition, in log order within each; it returns
// how many facts it read. Every fact of one signing event is in one
// partition, and what crosses partitions (sessions, streams) does not
// depend on their order (see twophase.State.Apply). The first record of a
// source key wins, as everywhere in the log: a repeated fact is skipped.
func Replay(ctx context.Context, lg topics.Log, apply func(twophase.Fact)) (int, error) {
	cat := topics.DefaultCatalog()
	ends, err := lg.EndOffsets(ctx, topics.TopicSigning)
	if err != nil {
		return 0, err
	}
	seen := map[string]bool{}
	n := 0
	for p, end := range ends {
		for off := int64(0); off < end; {
			recs, err := lg.Read(ctx, topics.TopicSigning, int32(p), off, replayBatch)
			if err != nil {
				return n, err
			}
			if len(recs) == 0 {
				break
			}
			for _, r := range recs {
				off = r.Offset + 1
				env, err := topics.DecodeEnvelope(r.Value)
				if err != nil {
					return n, fmt.Errorf("%s/%d@%d: %w", topics.TopicSigning, p, r.Offset, err)
				}
				if err := cat.Check(&env); err != nil {
					return n, fmt.Errorf("%s/%d@%d: %w", topics.TopicSigning, p, r.Offset, err)
				}
				f := twophase.NewFact(env.Type)
				if f == nil || seen[env.SourceKey] {
					continue
				}
				if err := topics.DecodePayload(env.Payload, f); err != nil {
					return n, fmt.Errorf("%s/%d@%d: %w", topics.TopicSigning, p, r.Offset, err)
				}
				seen[env.SourceKey] = true
				apply(f)
				n++
			}
		}
	}
	return n, nil
}
