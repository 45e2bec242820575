package topics

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/vmihailenco/msgpack/v5"
)

// envelopeFormat is the wire layout version of the envelope itself (not of
// any payload). Bump it only with a decoder that still reads older layouts.
const envelopeFormat = 1

// envelopeFields is the number of array elements of format 1.
const envelopeFields = 12

// DefaultMaxEnvelopeBytes bounds an encoded envelope unless a [Limits] says otherwise.
const DefaultMaxEnvelopeBytes = 1 << 20

// maxStringBytes bounds every string field of an envelope; none of ours is
// legitimately longer than a few hundred bytes.
const maxStringBytes = 4096

// Errors returned by the codec. All decoding errors wrap [ErrMalformed],
// [ErrOversized] or [ErrEnvelopeFormat].
var (
	ErrMalformed      = errors.New("malformed envelope")
	ErrOversized      = errors.New("envelope over size bound")
	ErrEnvelopeFormat = errors.New("envelope format newer than this binary")
)

// Limits bounds what the decoder accepts. The zero value uses the defaults.
type Limits struct {
	MaxEnvelopeBytes int // 0 means DefaultMaxEnvelopeBytes
}

func (l Limits) maxBytes() int {
	if l.MaxEnvelopeBytes <= 0 {
		return DefaultMaxEnvelopeBytes
	}
	return l.MaxEnvelopeBytes
}

var encPool = sync.Pool{New: func() any {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.UseCompactInts(true)
	return &pooledEncoder{buf: &buf, enc: enc}
}}

type pooledEncoder struct {
	buf *bytes.Buffer
	enc *msgpack.Encoder
}

// EncodeEnvelope serialises e as a msgpack array. It refuses envelopes over
// the size bound so that nothing oversized ever reaches the log.
func EncodeEnvelope(e *Envelope, lim Limits) ([]byte, error) {
	pe := encPool.Get().(*pooledEncoder)
	defer encPool.Put(pe)
	pe.buf.Reset()
	enc := pe.enc
	err := errors.Join(
		enc.EncodeArrayLen(envelopeFields),
		enc.EncodeUint(envelopeFormat),
		enc.EncodeString(e.ID),
		enc.EncodeString(e.Type),
		enc.EncodeUint(uint64(e.SchemaVersion)),
		enc.EncodeString(e.SourceKey),
		enc.EncodeString(e.AggregateID),
		enc.EncodeString(e.PartitionKey),
		enc.EncodeString(e.CausationID),
		enc.EncodeString(e.CorrelationID),
		enc.EncodeInt(unixNano(e.OccurredAt)),
		enc.EncodeInt(unixNano(e.RecordedAt)),
		enc.EncodeBytes(e.Payload),
	)
	if err != nil {
		return nil, fmt.Errorf("encode envelope %s: %w", e.ID, err)
	}
	if pe.buf.Len() > lim.maxBytes() {
		return nil, fmt.Errorf("%w: envelope %s type %s is %d bytes, bound %d",
			ErrOversized, e.ID, e.Type, pe.buf.Len(), lim.maxBytes())
	}
	return bytes.Clone(pe.buf.Bytes()), nil
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// Decoder decodes envelopes, reusing its internal state between calls. It
// is not safe for concurrent use; give each goroutine its own.
type Decoder struct {
	lim Limits
	buf []byte // the input of the current Decode call
	rd  bytes.Reader
	dec *msgpack.Decoder
}

// NewDecoder returns a decoder that enforces lim.
func NewDecoder(lim Limits) *Decoder {
	d := &Decoder{lim: lim}
	d.dec = msgpack.NewDecoder(&d.rd)
	return d
}

// DecodeEnvelope decodes one envelope with default limits.
func DecodeEnvelope(b []byte) (Envelope, error) {
	var e Envelope
	err := NewDecoder(Limits{}).Decode(b, &e)
	return e, err
}

// Decode decodes b into e. Untrusted input never panics: it yields an error
// wrapping ErrMalformed, ErrOversized or ErrEnvelopeFormat. e.Payload
// aliases b, so callers that keep it beyond b's lifetime must copy it.
func (d *Decoder) Decode(b []byte, e *Envelope) (err error) {
	if len(b) > d.lim.maxBytes() {
		return fmt.Errorf("%w: %d bytes, bound %d", ErrOversized, len(b), d.lim.maxBytes())
	}
	d.buf = b
	d.rd.Reset(b)
	d.dec.Reset(&d.rd)
	dec := d.dec
	n, err := dec.DecodeArrayLen()
	if err != nil {
		return fmt.Errorf("%w: header: %v", ErrMalformed, err)
	}
	if n < 1 {
		return fmt.Errorf("%w: %d fields", ErrMalformed, n)
	}
	format, err := dec.DecodeUint()
	if err != nil {
		return fmt.Errorf("%w: format: %v", ErrMalformed, err)
	}
	if format > envelopeFormat {
		return fmt.Errorf("%w: format %d, this binary reads up to %d", ErrEnvelopeFormat, format, envelopeFormat)
	}
	if format != envelopeFormat || n != envelopeFields {
		return fmt.Errorf("%w: format %d with %d fields", ErrMalformed, format, n)
	}
	str := func(field string, dst *string) {
		if err != nil {
			return
		}
		var s string
		if s, err = d.boundedString(); err != nil {
			err = fmt.Errorf("%w: field %s: %v", ErrMalformed, field, err)
			return
		}
		*dst = s
	}
	str("id", &e.ID)
	str("type", &e.Type)
	if err != nil {
		return err
	}
	sv, err := dec.DecodeUint()
	if err != nil || sv > 0xffff {
		return fmt.Errorf("%w: field schema_version: %v", ErrMalformed, err)
	}
	e.SchemaVersion = uint16(sv)
	str("source_key", &e.SourceKey)
	str("aggregate_id", &e.AggregateID)
	str("partition_key", &e.PartitionKey)
	str("causation_id", &e.CausationID)
	str("correlation_id", &e.CorrelationID)
	if err != nil {
		return err
	}
	occ, err := dec.DecodeInt64()
	if err != nil {
		return fmt.Errorf("%w: field occurred_at: %v", ErrMalformed, err)
	}
	rec, err := dec.DecodeInt64()
	if err != nil {
		return fmt.Errorf("%w: field recorded_at: %v", ErrMalformed, err)
	}
	e.OccurredAt, e.RecordedAt = fromUnixNano(occ), fromUnixNano(rec)
	// The payload is the tail of b; alias it instead of copying.
	plen, err := dec.DecodeBytesLen()
	if err != nil {
		return fmt.Errorf("%w: field payload: %v", ErrMalformed, err)
	}
	rest := d.rd.Len()
	if plen < 0 || plen != rest {
		return fmt.Errorf("%w: payload length %d, %d bytes remain", ErrMalformed, plen, rest)
	}
	e.Payload = b[len(b)-rest:]
	return nil
}

// boundedString reads a msgpack str (or bin) straight out of the input,
// refusing lengths over the bound or past the end before allocating.
func (d *Decoder) boundedString() (string, error) {
	n, err := d.dec.DecodeBytesLen()
	if err != nil {
		return "", err
	}
	if n <= 0 {
		return "", nil
	}
	if n > maxStringBytes || n > d.rd.Len() {
		return "", fmt.Errorf("string of %d bytes, %d remain, bound %d", n, d.rd.Len(), maxStringBytes)
	}
	pos := len(d.buf) - d.rd.Len()
	s := string(d.buf[pos : pos+n])
	if _, err := d.rd.Seek(int64(n), io.SeekCurrent); err != nil {
		return "", err
	}
	return s, nil
}
