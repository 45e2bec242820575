package embeddedlog

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/bridgelog/bridgelog/topics"
)

// scanChunk is the buffer Scan reuses; a frame larger than it gets its own.
const scanChunk = 1 << 20

// Scan calls fn for every record of one partition from offset from to the
// end as of the call, in order, and returns the offset after the last
// record passed to fn. It stops early when fn returns an error (returned
// as is) or ctx ends.
//
// It is the replay fast path: unlike [Log.Read], it reuses one buffer, so
// the Key and Value of the record given to fn are valid only until fn
// returns. Copy what you keep. Callers holding a [topics.Log] can reach it
// through a small interface of their own.
func (l *Log) Scan(ctx context.Context, topic string, part int32, from int64, fn func(topics.Record) error) (int64, error) {
	if err := l.enter(); err != nil {
		return from, err
	}
	t, err := l.topic(topic)
	var p *partition
	if err == nil {
		p, err = t.partition(part)
	}
	if err == nil && t.rd != nil && from >= p.end() {
		err = t.rd.refresh(ctx)
	}
	end := int64(0)
	if err == nil {
		end = p.end()
		if from < 0 || from > end {
			err = fmt.Errorf("embeddedlog: %w: %s/%d offset %d, end %d", topics.ErrOffsetRange, topic, part, from, end)
		}
	}
	l.leave()
	if err != nil {
		return from, err
	}
	buf := make([]byte, scanChunk)
	for from < end {
		if err := ctx.Err(); err != nil {
			return from, err
		}
		sp, ok := p.span(from)
		if !ok {
			break
		}
		if from, buf, err = l.scanPart(ctx, p, sp, from, end, buf, fn); err != nil {
			return from, err
		}
	}
	return from, nil
}

// scanPart passes the records of one segment from offset from on to fn.
func (l *Log) scanPart(ctx context.Context, p *partition, sp readSpan, from, end int64, buf []byte, fn func(topics.Record) error) (int64, []byte, error) {
	pos, expect := sp.start.pos, sp.start.off
	var chunk []byte // unparsed bytes of buf, starting at pos
	for pos < sp.size && from < end {
		if len(chunk) < 8 || len(chunk) < frameLen(chunk) {
			if err := ctx.Err(); err != nil {
				return from, buf, err
			}
			if need := frameLen(chunk); need > len(buf) {
				buf = make([]byte, need)
			}
			n := min(int64(len(buf)), sp.size-pos)
			if err := l.enter(); err != nil {
				return from, buf, err
			}
			_, err := sp.seg.f.ReadAt(buf[:n], pos)
			l.leave()
			if err != nil && !errors.Is(err, io.EOF) {
				return from, buf, &FileError{File: sp.seg.path, Offset: pos, Err: fmt.Errorf("read: %w", err)}
			}
			chunk = buf[:n]
		}
		f, n, refill, err := p.frameAt(sp, chunk, pos, expect)
		if err != nil {
			return from, buf, err
		}
		if refill {
			continue // from pos
		}
		if f.offset >= from {
			if err := fn(p.record(f)); err != nil {
				return from, buf, err
			}
			from = f.offset + 1
		}
		expect++
		pos += int64(n)
		chunk = chunk[n:]
	}
	if pos >= sp.size {
		from = max(from, sp.next)
	}
	return from, buf, nil
}
