package signermesh

import (
	"context"
	"sync"
)

// queue holds the messages waiting for one peer, oldest first, across
// its links: what is sent while the peer is away leaves when it is back.
// It is bounded in messages and bytes; push never blocks and drops the
// oldest messages to make room, since a newer message of the protocol
// supersedes or repeats an older one and anti-entropy recovers the rest.
type queue struct {
	maxItems, maxBytes int

	mu    sync.Mutex
	items [][]byte
	bytes int
	wake  chan struct{} // holds a token while items is not empty
}

func newQueue(maxItems, maxBytes int) *queue {
	return &queue{maxItems: maxItems, maxBytes: maxBytes, wake: make(chan struct{}, 1)}
}

// push appends raw and returns how many older messages it dropped.
// raw is shared, never modified, by the queue.
func (q *queue) push(raw []byte) (dropped int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) > 0 && (len(q.items)+1 > q.maxItems || q.bytes+len(raw) > q.maxBytes) {
		q.bytes -= len(q.items[0])
		q.items[0] = nil
		q.items = q.items[1:]
		dropped++
	}
	q.items = append(q.items, raw)
	q.bytes += len(raw)
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return dropped
}

// pop removes and returns the oldest message, waiting for one until ctx
// ends.
func (q *queue) pop(ctx context.Context) ([]byte, bool) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			raw := q.items[0]
			q.items[0] = nil
			q.items = q.items[1:]
			q.bytes -= len(raw)
			if len(q.items) > 0 {
				select {
				case q.wake <- struct{}{}:
				default:
				}
			}
			q.mu.Unlock()
			return raw, true
		}
		q.mu.Unlock()
		select {
		case <-q.wake:
		case <-ctx.Done():
			return nil, false
		}
	}
}

// len is the number of messages waiting.
func (q *queue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}
