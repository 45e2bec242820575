package analytics

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/topics"
)

// Several logs may be sunk into one warehouse: the relay's and each
// signer's. A log's origin (a signer's id; empty for the relay) qualifies
// the topic its rows and checkpoints are stored under, "topic@origin", so
// the same position in two logs is two keys of bridgelog_events and of
// the checkpoints. The relay's rows keep the bare topic, so a warehouse
// filled before origins existed stays valid.

// originSep joins a topic and its origin in the stored topic.
const originSep = "@"

// StoredTopic is the topic the warehouse stores a log's topic under.
func StoredTopic(topic, origin string) string {
	if origin == "" {
		return topic
	}
	return topic + originSep + origin
}

// originColumn is the origin of a row, computed from its stored topic.
const originColumn = `if(position(topic, '` + originSep + `') > 0, substring(topic, position(topic, '` + originSep + `') + 1), '')`

// ErrOrigin: a log's origin cannot be told or is not usable.
var ErrOrigin = errors.New("analytics: origin")

// CheckOrigin refuses an origin that would not round-trip through the
// stored topic.
func CheckOrigin(origin string) error {
	if strings.Contains(origin, originSep) || strings.TrimSpace(origin) != origin {
		return fmt.Errorf("%w %q: no %q and no surrounding spaces", ErrOrigin, origin, originSep)
	}
	return nil
}

// originScan bounds how many records of each signing partition
// DetectOrigin reads looking for a signer_started fact: a signer records
// one at every start, so it is among a partition's first records.
const originScan = 1000

// DetectOrigin tells whose log lg is: the signer id its
// signing.signer_started facts name, or "" for a log without signing
// facts (a relay's). A log with signing facts but no signer_started in
// the first records of its partitions, or naming two signers, is an
// [ErrOrigin] error: give the origin explicitly.
func DetectOrigin(ctx context.Context, lg topics.Log) (string, error) {
	ends, err := lg.EndOffsets(ctx, topics.TopicSigning)
	if err != nil {
		return "", fmt.Errorf("analytics: detect the origin: end offsets of %s: %w", topics.TopicSigning, err)
	}
	found, facts := "", false
	for p, end := range ends {
		if end == 0 {
			continue
		}
		facts = true
		recs, err := lg.Read(ctx, topics.TopicSigning, int32(p), 0, originScan)
		if err != nil {
			return "", fmt.Errorf("analytics: detect the origin: read %s/%d: %w", topics.TopicSigning, p, err)
		}
		for _, rec := range recs {
			env, err := topics.DecodeEnvelope(rec.Value)
			if err != nil || env.Type != twophase.TypeSignerStarted {
				continue
			}
			var f twophase.SignerStarted
			if err := topics.DecodePayload(env.Payload, &f); err != nil || f.Signer == "" {
				continue
			}
			if found != "" && found != string(f.Signer) {
				return "", fmt.Errorf("%w: the log holds facts of signers %s and %s: give the origin explicitly", ErrOrigin, found, f.Signer)
			}
			found = string(f.Signer)
		}
	}
	if facts && found == "" {
		return "", fmt.Errorf("%w: the log holds signing facts but no signing.signer_started: give the origin explicitly", ErrOrigin)
	}
	return found, CheckOrigin(found)
}
