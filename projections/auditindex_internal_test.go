package projections

import (
	"errors"
	"testing"

	"github.com/bridgelog/bridgelog/topics"
)

// TestAuditRowID: an audit_keys id gives back its position at the edges
// of every field, consecutive keys of an event have consecutive ids, and what
// does not fit is refused with ErrAuditKeyID.
func TestAuditRowID(t *testing.T) {
	for _, p := range []topics.Position{
		{Topic: topics.TopicChain},
		{Topic: topics.TopicBench, Partition: 1<<auditPartitionBits - 1, Offset: 1<<auditOffsetBits - 1},
		{Topic: topics.TopicSigning, Partition: 7, Offset: 123456789},
	} {
		for _, i := range []int{0, 1, 1<<auditKeyBits - 1} {
			id, err := auditRowID(p, i)
			if err != nil || id < 0 {
				t.Fatalf("%v key %d: id %d, %v", p, i, id, err)
			}
			if got := auditRowPosition(id); got != p {
				t.Fatalf("id %d of %v key %d gives back %v", id, p, i, got)
			}
		}
		a, _ := auditRowID(p, 0)
		b, _ := auditRowID(p, 1)
		if b != a+1 {
			t.Fatalf("ids of keys 0 and 1 at %v: %d, %d", p, a, b)
		}
	}
	for _, c := range []struct {
		p topics.Position
		i int
	}{
		{topics.Position{Topic: topics.TopicBridge, Offset: 1 << auditOffsetBits}, 0},
		{topics.Position{Topic: topics.TopicBridge, Partition: 1 << auditPartitionBits}, 0},
		{topics.Position{Topic: topics.TopicBridge}, 1 << auditKeyBits},
		{topics.Position{Topic: "no.such.topic"}, 0},
	} {
		if _, err := auditRowID(c.p, c.i); !errors.Is(err, ErrAuditKeyID) {
			t.Fatalf("%v key %d: %v, want ErrAuditKeyID", c.p, c.i, err)
		}
	}
}
