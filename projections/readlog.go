package projections

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/bridgelog/bridgelog/topics"
)

// readLog reads and decodes [from, end) of every partition, round-robin,
// into batches. It runs beside apply so decoding overlaps the store's work.
func (r *Runner) readLog(ctx context.Context, from, end map[tp]int64, out chan<- *batch) error {
	keys := make([]tp, 0, len(from))
	for k := range from {
		if end[k] > from[k] {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].topic < keys[j].topic || keys[i].topic == keys[j].topic && keys[i].part < keys[j].part
	})
	cursor := map[tp]int64{}
	for _, k := range keys {
		cursor[k] = from[k]
	}
	var decs [2]decodeScratch
	for i := range decs {
		decs[i].dec = topics.NewDecoder(r.cfg.limits)
		// A record's buffer stays with its batch until the batch is
		// folded: strings may alias it.
		decs[i].dec.AliasInput = true
	}
	newMemory := r.rebuild.batchMemory()
	newBatch := func() *batch {
		b := &batch{next: map[tp]int64{}, evs: make([]*Event, 0, r.cfg.batchSize)}
		if newMemory != nil {
			b.mem = newMemory()
		}
		return b
	}
	b := newBatch()
	read := func(k tp, max int) ([]topics.Record, error) {
		if b.mem != nil {
			return b.mem.read(ctx, k, cursor[k], max)
		}
		return r.log.Read(ctx, k.topic, k.part, cursor[k], max)
	}
	send := func() error {
		if b.records == 0 {
			return nil
		}
		select {
		case out <- b:
		case <-ctx.Done():
			return ctx.Err()
		}
		b = newBatch()
		return nil
	}
	for len(keys) > 0 {
		live := keys[:0]
		for _, k := range keys {
			recs, err := read(k, min(r.cfg.readChunk, int(end[k]-cursor[k])))
			if err != nil {
				return fmt.Errorf("read %s: %w", pos(k.topic, k.part, cursor[k]), err)
			}
			if cut := sort.Search(len(recs), func(i int) bool { return recs[i].Offset >= end[k] }); cut < len(recs) {
				recs = recs[:cut]
			}
			evs, err := r.decodeChunk(&decs, recs, b.mem)
			if err != nil {
				return err
			}
			for _, ev := range evs {
				b.records++
				if ev == nil {
					b.skipped++
				} else {
					b.evs = append(b.evs, ev)
				}
			}
			if len(recs) > 0 {
				cursor[k] = recs[len(recs)-1].Offset + 1
				b.next[k] = cursor[k]
			}
			// An empty read before end: Kafka offsets may end in a gap.
			if len(recs) > 0 && cursor[k] < end[k] {
				live = append(live, k)
			}
			if len(b.evs)+int(b.skipped) >= r.cfg.batchSize {
				if err := send(); err != nil {
					return err
				}
			}
		}
		keys = live
	}
	return send()
}

// decodeScratch is one decoding goroutine's decoder and hashing buffer.
type decodeScratch struct {
	dec  *topics.Decoder
	hash []byte
}

// decodeChunk decodes recs in order (nil for a record skipped by policy)
// and returns the error of the first record that fails. Decoding is the
// reading goroutine's largest cost; the second half of a large chunk is
// decoded on another goroutine, so the reader keeps ahead of the judge
// while the other stages leave a core idle.
func (r *Runner) decodeChunk(decs *[2]decodeScratch, recs []topics.Record, mem batchMemory) ([]*Event, error) {
	evs := make([]*Event, len(recs))
	var store []Event
	if mem != nil {
		store = mem.newEvents(len(recs))
	} else {
		store = make([]Event, len(recs))
	}
	run := func(d *decodeScratch, lo, hi int) error {
		for i := lo; i < hi; i++ {
			ev, err := r.decode(d.dec, &recs[i], &d.hash, &store[i])
			if err != nil {
				return err
			}
			evs[i] = ev
		}
		return nil
	}
	half := len(recs)
	if len(recs) >= minSplitDecode {
		half = len(recs) / 2
	}
	var wg sync.WaitGroup
	var hiErr error
	if half < len(recs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hiErr = run(&decs[1], half, len(recs))
		}()
	}
	loErr := run(&decs[0], 0, half)
	wg.Wait()
	if loErr != nil {
		return nil, loErr
	}
	return evs, hiErr
}

// minSplitDecode is the smallest chunk decoded on two goroutines.
const minSplitDecode = 256

// decode turns a record into ev (zero), or returns nil for one skipped
// by policy.
func (r *Runner) decode(dec *topics.Decoder, rec *topics.Record, hashBuf *[]byte, ev *Event) (*Event, error) {
	ev.Position = rec.Position()
	err := dec.Decode(rec.Value, &ev.Envelope)
	reason := "malformed"
	if err == nil && ev.Envelope.SourceKey == "" {
		err = fmt.Errorf("%w: event %s has no source key", topics.ErrMalformed, ev.Envelope.ID)
	}
	if err == nil {
		if err = r.cfg.catalog.Check(&ev.Envelope); err != nil {
			reason = "unknown_type"
			if errors.Is(err, topics.ErrSchemaTooNew) {
				reason = "schema_too_new"
			}
		}
	}
	if err == nil {
		ev.Body, err = DecodeBody(&ev.Envelope)
	}
	if err != nil {
		if r.cfg.policy == topics.Skip {
			r.cfg.metrics.Skipped(reason, 1)
			r.cfg.logger.Warn("envelope skipped", "position", FormatPosition(ev.Position), "reason", reason, "err", err)
			return nil, nil
		}
		return nil, &DecodeError{Position: ev.Position, Err: err}
	}
	buf := append((*hashBuf)[:0], ev.Envelope.Type...)
	buf = append(buf, 0)
	buf = append(buf, ev.Envelope.Payload...)
	ev.ContentHash = sha256.Sum256(buf)
	*hashBuf = buf
	ev.derive()
	return ev, nil
}

// DecodeError names the record an envelope could not be read from.
type DecodeError struct {
	Position topics.Position
	Err      error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("record %s (topic %s, partition %d, offset %d): %v",
		FormatPosition(e.Position), e.Position.Topic, e.Position.Partition, e.Position.Offset, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }
