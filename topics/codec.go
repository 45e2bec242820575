package topics

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/vmihailenco/msgpack/v5"
)

// envelopeFormat is the wire layout version of the envelope itself (not of
// any payload). Bump it only with a decoder that still reads older layouts.
const envelopeFormat = 1

// envelopeFields is the number of array elements of format 1.
const envelopeFields = 12

// DefaultMaxEnvelopeBytes bounds an encoded envelope unless a [Limits] says
// otherwise. It sits below the Kafka engine's default message bound
// (1,000,000 bytes, key included; partition keys are at most 4 KiB) with
// room for a dead-letter frame's metadata, so every envelope either engine
// accepts can also be dead-lettered on both.
const DefaultMaxEnvelopeBytes = 900_000

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

// Decoder decodes envelopes. It reads the fixed envelope layout directly
// (the msgpack library's per-call overhead was most of the cost of a
// replay) with a bounds check before every read. It is not safe for
// concurrent use; give each goroutine its own.
type Decoder struct {
	lim Limits
	// AliasInput makes the decoded strings share the input's memory
	// instead of one copy per envelope: zero allocations, for callers
	// whose input buffer is never modified while the envelope is in use
	// (records from topics.Log.Read are fresh buffers).
	AliasInput bool
}

// NewDecoder returns a decoder that enforces lim.
func NewDecoder(lim Limits) *Decoder { return &Decoder{lim: lim} }

// DecodeEnvelope decodes one envelope with default limits.
func DecodeEnvelope(b []byte) (Envelope, error) {
	var e Envelope
	err := NewDecoder(Limits{}).Decode(b, &e)
	return e, err
}

// reader walks msgpack values of the kinds the envelope uses.
type reader struct {
	b   []byte
	pos int
}

var errShort = errors.New("unexpected end of input")

func (r *reader) byte1() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, errShort
	}
	c := r.b[r.pos]
	r.pos++
	return c, nil
}

// be reads an n-byte big-endian unsigned integer.
func (r *reader) be(n int) (uint64, error) {
	if len(r.b)-r.pos < n {
		return 0, errShort
	}
	var v uint64
	for _, c := range r.b[r.pos : r.pos+n] {
		v = v<<8 | uint64(c)
	}
	r.pos += n
	return v, nil
}

func (r *reader) arrayLen() (int, error) { return r.containerLen(0x90, 0xdc, 0xdd, "an array") }

// containerLen reads an array or map header: the fixed form (fix in the
// high four bits, the count in the low four), or a 16- or 32-bit count.
func (r *reader) containerLen(fix, c16, c32 byte, what string) (int, error) {
	c, err := r.byte1()
	switch {
	case err != nil:
		return 0, err
	case c&0xf0 == fix:
		return int(c & 0x0f), nil
	case c == c16:
		v, err := r.be(2)
		return int(v), err
	case c == c32:
		v, err := r.be(4)
		return int(v), err
	}
	return 0, fmt.Errorf("code %#x is not %s", c, what)
}

// uint reads a non-negative integer in any msgpack integer form.
func (r *reader) uint() (uint64, error) {
	v, neg, err := r.int()
	if err == nil && neg {
		return 0, fmt.Errorf("negative value where unsigned expected")
	}
	return v, err
}

// int reads any msgpack integer as magnitude bits and sign.
func (r *reader) int() (v uint64, neg bool, err error) {
	c, err := r.byte1()
	if err != nil {
		return 0, false, err
	}
	switch {
	case c <= 0x7f:
		return uint64(c), false, nil
	case c >= 0xe0:
		return uint64(int64(int8(c))), true, nil
	case c >= 0xcc && c <= 0xcf:
		v, err = r.be(1 << (c - 0xcc))
		return v, false, err
	case c >= 0xd0 && c <= 0xd3:
		n := 1 << (c - 0xd0)
		v, err = r.be(n)
		if err != nil {
			return 0, false, err
		}
		// Sign-extend n bytes to 64 bits.
		shift := 64 - 8*n
		sv := int64(v<<shift) >> shift
		return uint64(sv), sv < 0, nil
	}
	return 0, false, fmt.Errorf("code %#x is not an integer", c)
}

// bytesLen reads a str, bin or nil header; nil is length 0.
func (r *reader) bytesLen() (int, error) {
	c, err := r.byte1()
	if err != nil {
		return 0, err
	}
	switch {
	case c >= 0xa0 && c <= 0xbf:
		return int(c & 0x1f), nil
	case c == 0xc0:
		return 0, nil
	case c == 0xd9 || c == 0xc4:
		v, err := r.be(1)
		return int(v), err
	case c == 0xda || c == 0xc5:
		v, err := r.be(2)
		return int(v), err
	case c == 0xdb || c == 0xc6:
		v, err := r.be(4)
		return int(v), err
	}
	return 0, fmt.Errorf("code %#x is not a string", c)
}

// span locates a string of at most maxStringBytes and skips it.
func (r *reader) span() (pos, n int, err error) {
	if n, err = r.bytesLen(); err != nil {
		return 0, 0, err
	}
	if n > maxStringBytes || n > len(r.b)-r.pos {
		return 0, 0, fmt.Errorf("string of %d bytes, %d remain, bound %d", n, len(r.b)-r.pos, maxStringBytes)
	}
	pos = r.pos
	r.pos += n
	return pos, n, nil
}

// Decode decodes b into e. Untrusted input never panics: it yields an error
// wrapping ErrMalformed, ErrOversized or ErrEnvelopeFormat. e.Payload
// aliases b, so callers that keep it beyond b's lifetime must copy it.
func (d *Decoder) Decode(b []byte, e *Envelope) error {
	if len(b) > d.lim.maxBytes() {
		return fmt.Errorf("%w: %d bytes, bound %d", ErrOversized, len(b), d.lim.maxBytes())
	}
	r := reader{b: b}
	n, err := r.arrayLen()
	if err != nil {
		return fmt.Errorf("%w: header: %v", ErrMalformed, err)
	}
	if n < 1 {
		return fmt.Errorf("%w: %d fields", ErrMalformed, n)
	}
	format, err := r.uint()
	if err != nil {
		return fmt.Errorf("%w: format: %v", ErrMalformed, err)
	}
	if format > envelopeFormat {
		return fmt.Errorf("%w: format %d, this binary reads up to %d", ErrEnvelopeFormat, format, envelopeFormat)
	}
	if format != envelopeFormat || n != envelopeFields {
		return fmt.Errorf("%w: format %d with %d fields", ErrMalformed, format, n)
	}
	// The seven strings are located first and then materialised from one
	// allocation.
	var spans [7][2]int
	fields := [7]string{"id", "type", "source_key", "aggregate_id", "partition_key", "causation_id", "correlation_id"}
	for i := range spans {
		if i == 2 {
			sv, err := r.uint()
			if err != nil || sv > 0xffff {
				return fmt.Errorf("%w: field schema_version %d: %v", ErrMalformed, sv, err)
			}
			e.SchemaVersion = uint16(sv)
		}
		if spans[i][0], spans[i][1], err = r.span(); err != nil {
			return fmt.Errorf("%w: field %s: %v", ErrMalformed, fields[i], err)
		}
	}
	times := [2]int64{}
	for i, f := range [2]string{"occurred_at", "recorded_at"} {
		v, _, err := r.int()
		if err != nil {
			return fmt.Errorf("%w: field %s: %v", ErrMalformed, f, err)
		}
		times[i] = int64(v)
	}
	// The payload is the tail of b; alias it instead of copying.
	plen, err := r.bytesLen()
	if err != nil {
		return fmt.Errorf("%w: field payload: %v", ErrMalformed, err)
	}
	if rest := len(b) - r.pos; plen != rest {
		return fmt.Errorf("%w: payload length %d, %d bytes remain", ErrMalformed, plen, rest)
	}
	dsts := [7]*string{&e.ID, &e.Type, &e.SourceKey, &e.AggregateID, &e.PartitionKey, &e.CausationID, &e.CorrelationID}
	if d.AliasInput {
		whole := unsafe.String(unsafe.SliceData(b), len(b))
		for i, dst := range dsts {
			*dst = whole[spans[i][0] : spans[i][0]+spans[i][1]]
		}
	} else {
		total := 0
		for _, sp := range spans {
			total += sp[1]
		}
		all := make([]byte, 0, total)
		for _, sp := range spans {
			all = append(all, b[sp[0]:sp[0]+sp[1]]...)
		}
		joined := unsafe.String(unsafe.SliceData(all), len(all))
		at := 0
		for i, dst := range dsts {
			*dst = joined[at : at+spans[i][1]]
			at += spans[i][1]
		}
	}
	e.OccurredAt, e.RecordedAt = fromUnixNano(times[0]), fromUnixNano(times[1])
	e.Payload = b[r.pos:]
	return nil
}
