package watermilllog

import (
	"bytes"
	"fmt"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/bridgelog/bridgelog/topics"
)

// deadLetterFormat versions the frame; bump it only with a decoder that
// still reads the older layout.
const deadLetterFormat = 1

// DeadLetter is a record of the dead-letter topic: a message a handler
// could not process, with all its metadata. Watermill's poison queue puts
// the error in Metadata["reason_poisoned"] and the source topic and
// handler in "topic_poisoned" and "handler_poisoned".
type DeadLetter struct {
	Metadata map[string]string
	// Payload is the message payload as it was handed to the handler:
	// normally an encoded envelope, but a malformed record's raw bytes
	// too, so nothing is lost.
	Payload []byte
}

// Reason is the poison queue's reason, if any.
func (d DeadLetter) Reason() string { return d.Metadata["reason_poisoned"] }

// EncodeDeadLetter encodes d as a msgpack array [format, metadata, payload].
func EncodeDeadLetter(d DeadLetter) ([]byte, error) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetSortMapKeys(true) // same frame for the same message
	if err := enc.EncodeArrayLen(3); err != nil {
		return nil, err
	}
	if err := enc.EncodeUint(deadLetterFormat); err != nil {
		return nil, err
	}
	if err := enc.Encode(d.Metadata); err != nil {
		return nil, err
	}
	if err := enc.EncodeBytes(d.Payload); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// DecodeDeadLetter decodes a dead-letter record. Errors wrap
// [topics.ErrMalformed] or [topics.ErrOversized].
func DecodeDeadLetter(b []byte, lim topics.Limits) (DeadLetter, error) {
	// A frame holds an envelope plus metadata; allow it twice the bound.
	bound := 2 * lim.MaxEnvelopeBytes
	if lim.MaxEnvelopeBytes <= 0 {
		bound = 2 * topics.DefaultMaxEnvelopeBytes
	}
	if len(b) > bound {
		return DeadLetter{}, fmt.Errorf("%w: dead letter of %d bytes, bound %d", topics.ErrOversized, len(b), bound)
	}
	rd := bytes.NewReader(b) // a ByteScanner: the decoder reads it without buffering
	dec := msgpack.NewDecoder(rd)
	n, err := dec.DecodeArrayLen()
	if err != nil || n != 3 {
		return DeadLetter{}, fmt.Errorf("%w: dead letter header (%d fields): %v", topics.ErrMalformed, n, err)
	}
	format, err := dec.DecodeUint()
	if err != nil || format != deadLetterFormat {
		return DeadLetter{}, fmt.Errorf("%w: dead letter format %d: %v", topics.ErrMalformed, format, err)
	}
	var d DeadLetter
	if err := dec.Decode(&d.Metadata); err != nil {
		return DeadLetter{}, fmt.Errorf("%w: dead letter metadata: %v", topics.ErrMalformed, err)
	}
	if d.Payload, err = dec.DecodeBytes(); err != nil {
		return DeadLetter{}, fmt.Errorf("%w: dead letter payload: %v", topics.ErrMalformed, err)
	}
	if rd.Len() != 0 {
		return DeadLetter{}, fmt.Errorf("%w: trailing bytes after dead letter", topics.ErrMalformed)
	}
	return d, nil
}
