package topics

import (
	"encoding/hex"
	"math"
	"reflect"
	"unsafe"

	"github.com/bridgelog/bridgelog/domain"
)

// The lifecycle events (deposits and withdrawals) are most of any bridge
// log, and decoding them through msgpack's reflection was the largest
// single cost of a rebuild; a relay's own log adds about as many
// transaction intents and outcomes, and chain scans. decodeLifecycle
// reads exactly the shape [EncodePayload] writes for them (a map of known
// keys; uints, 0x-hex text, decimal amounts, text and bytes) without
// reflection, by tables derived from the structs' msgpack tags at
// start-up (payloadfields.go). Anything else it declines, and msgpack's
// general decoder takes the payload, errors included: the fast path only
// ever agrees with msgpack (FuzzLifecyclePayload checks it).

var (
	depositDetectedTable     = tableOf[domain.DepositDetected]()
	depositConfirmedTable    = tableOf[domain.DepositConfirmed]()
	depositMintedTable       = tableOf[domain.DepositMinted]()
	depositFailedTable       = tableOf[domain.DepositFailed]()
	withdrawalDetectedTable  = tableOf[domain.WithdrawalDetected]()
	withdrawalConfirmedTable = tableOf[domain.WithdrawalConfirmed]()
	withdrawalExecutedTable  = tableOf[domain.WithdrawalExecuted]()
	withdrawalFailedTable    = tableOf[domain.WithdrawalFailed]()
	txIntentTable            = tableOf[domain.TxIntent]()
	txOutcomeTable           = tableOf[domain.TxOutcome]()
	chainScannedTable        = tableOf[domain.ChainScanned]()
	withdrawalBatchedTable   = tableOf[domain.WithdrawalBatched]()
	batchCreatedTable        = tableOf[domain.BatchCreated]()
	batchAnchoredTable       = tableOf[domain.BatchAnchored]()
	claimRequestedTable      = tableOf[domain.ClaimRequested]()
)

// decodeLifecycle decodes b into v when v is a lifecycle event and b has
// the canonical shape; false leaves v untouched.
func decodeLifecycle(b []byte, v any) bool {
	switch e := v.(type) {
	case *domain.DepositDetected:
		return decodeInto(b, e, depositDetectedTable)
	case *domain.DepositConfirmed:
		return decodeInto(b, e, depositConfirmedTable)
	case *domain.DepositMinted:
		return decodeInto(b, e, depositMintedTable)
	case *domain.DepositFailed:
		return decodeInto(b, e, depositFailedTable)
	case *domain.WithdrawalDetected:
		return decodeInto(b, e, withdrawalDetectedTable)
	case *domain.WithdrawalConfirmed:
		return decodeInto(b, e, withdrawalConfirmedTable)
	case *domain.WithdrawalExecuted:
		return decodeInto(b, e, withdrawalExecutedTable)
	case *domain.WithdrawalFailed:
		return decodeInto(b, e, withdrawalFailedTable)
	case *domain.TxIntent:
		return decodeInto(b, e, txIntentTable)
	case *domain.TxOutcome:
		return decodeInto(b, e, txOutcomeTable)
	case *domain.ChainScanned:
		return decodeInto(b, e, chainScannedTable)
	case *domain.WithdrawalBatched:
		return decodeInto(b, e, withdrawalBatchedTable)
	case *domain.BatchCreated:
		return decodeInto(b, e, batchCreatedTable)
	case *domain.BatchAnchored:
		return decodeInto(b, e, batchAnchoredTable)
	case *domain.ClaimRequested:
		return decodeInto(b, e, claimRequestedTable)
	}
	return false
}

// decodeInto reads a map of t's fields into a copy of *dst (msgpack keeps
// the fields a payload does not name) and stores it only if the whole of
// b was read. A nil t (see tableOf) declines.
func decodeInto[T any](b []byte, dst *T, t *payloadTable) bool {
	if t == nil {
		return false
	}
	r := reader{b: b}
	v := *dst
	if !r.fields(unsafe.Pointer(&v), t) || r.pos != len(b) {
		return false
	}
	*dst = v
	return true
}

// fields reads a map of t's fields into the struct at p, in place: a
// payload's own (into decodeInto's copy) or a nested one (a failure
// declines the whole payload, so the copy is not kept).
func (r *reader) fields(p unsafe.Pointer, t *payloadTable) bool {
	n, ok := r.mapLen()
	if !ok {
		return false
	}
	next := 0
	for ; n > 0; n-- {
		k, ok := r.key()
		if !ok {
			return false
		}
		i := t.index(k, next)
		if i < 0 || !r.field(unsafe.Add(p, t.fields[i].offset), &t.fields[i]) {
			return false
		}
		next = i + 1
	}
	return true
}

// field reads one value of f's kind into the field at p.
func (r *reader) field(p unsafe.Pointer, f *payloadField) bool {
	switch f.kind {
	case kindUint64:
		return r.uint64((*uint64)(p))
	case kindUint32:
		return r.uint32((*uint32)(p))
	case kindInt:
		return r.nonNegInt((*int)(p))
	case kindBool:
		return r.boolean((*bool)(p))
	case kindString:
		return r.str((*string)(p))
	case kindBytes:
		return r.bytes((*[]byte)(p))
	case kindHex:
		return r.hexText(unsafe.Slice((*byte)(p), f.size))
	case kindAmount:
		return r.amount((*domain.Amount)(p))
	case kindHashes:
		return r.hashes((*[]domain.Hash32)(p))
	case kindStruct:
		return r.fields(p, f.nested)
	case kindStructs:
		return r.structs(p, f)
	}
	return false
}

// structs reads a non-empty array of f.nested maps into a new slice at p.
func (r *reader) structs(p unsafe.Pointer, f *payloadField) bool {
	n, ok := r.boundedArrayLen(1)
	if !ok {
		return false
	}
	base := reflect.MakeSlice(f.slice, n, n).UnsafePointer()
	for i := range uintptr(n) {
		if !r.fields(unsafe.Add(base, i*f.size), f.nested) {
			return false
		}
	}
	// A slice header is the same for any element type.
	*(*[]byte)(p) = unsafe.Slice((*byte)(base), n)
	return true
}

// boundedArrayLen reads a non-empty array header whose elements, of at least
// minSize bytes each, fit in what is left of the input (an empty or nil
// array is left to msgpack, which tells them apart).
func (r *reader) boundedArrayLen(minSize int) (int, bool) {
	n, err := r.arrayLen()
	if err != nil || n == 0 || n > (len(r.b)-r.pos)/minSize {
		return 0, false
	}
	return n, true
}

// hashes reads a non-empty array of 0x-hex hashes into a new slice.
func (r *reader) hashes(dst *[]domain.Hash32) bool {
	n, ok := r.boundedArrayLen(2 + 2 + 2*len(domain.Hash32{}))
	if !ok {
		return false
	}
	hs := make([]domain.Hash32, n)
	for i := range hs {
		if !r.hexText(hs[i][:]) {
			return false
		}
	}
	*dst = hs
	return true
}

// uint32 reads a non-negative integer that fits in 32 bits.
func (r *reader) uint32(dst *uint32) bool {
	var v uint64
	if !r.uint64(&v) || v > math.MaxUint32 {
		return false // msgpack's own rules decide
	}
	*dst = uint32(v)
	return true
}

// mapLen reads a map header.
func (r *reader) mapLen() (int, bool) {
	n, err := r.containerLen(0x80, 0xde, 0xdf, "a map")
	return n, err == nil
}

// key reads a str-coded map key. The string aliases the input and must
// not outlive the call that switches on it.
func (r *reader) key() (string, bool) {
	c, err := r.byte1()
	if err != nil {
		return "", false
	}
	var n int
	switch {
	case c >= 0xa0 && c <= 0xbf:
		n = int(c & 0x1f)
	case c == 0xd9:
		v, err := r.be(1)
		if err != nil {
			return "", false
		}
		n = int(v)
	default:
		return "", false
	}
	b, ok := r.take(n)
	if !ok || n == 0 {
		return "", false
	}
	return unsafe.String(&b[0], n), true
}

// take returns the next n bytes.
func (r *reader) take(n int) ([]byte, bool) {
	if n < 0 || len(r.b)-r.pos < n {
		return nil, false
	}
	b := r.b[r.pos : r.pos+n]
	r.pos += n
	return b, true
}

// uint64 reads a non-negative integer coded as such (msgpack also
// accepts signed codes and nil here; those are left to it).
func (r *reader) uint64(dst *uint64) bool {
	c, err := r.byte1()
	switch {
	case err != nil:
		return false
	case c <= 0x7f:
		*dst = uint64(c)
		return true
	case c >= 0xcc && c <= 0xcf:
		v, err := r.be(1 << (c - 0xcc))
		*dst = v
		return err == nil
	}
	return false
}

// nonNegInt reads a non-negative integer into an int (signed codes and nil are
// left to msgpack).
func (r *reader) nonNegInt(dst *int) bool {
	var v uint64
	if !r.uint64(&v) || v > math.MaxInt {
		return false
	}
	*dst = int(v)
	return true
}

func (r *reader) boolean(dst *bool) bool {
	c, err := r.byte1()
	if err != nil || c != 0xc2 && c != 0xc3 {
		return false
	}
	*dst = c == 0xc3
	return true
}

// text reads a str or bin value (not nil).
func (r *reader) text() ([]byte, bool) {
	c, err := r.byte1()
	if err != nil {
		return nil, false
	}
	var n uint64
	switch {
	case c >= 0xa0 && c <= 0xbf:
		n = uint64(c & 0x1f)
	case c == 0xd9 || c == 0xc4:
		n, err = r.be(1)
	case c == 0xda || c == 0xc5:
		n, err = r.be(2)
	case c == 0xdb || c == 0xc6:
		n, err = r.be(4)
	default:
		return nil, false
	}
	if err != nil {
		return nil, false
	}
	return r.take(int(n))
}

func (r *reader) str(dst *string) bool {
	b, ok := r.text()
	if ok {
		*dst = string(b)
	}
	return ok
}

// bytes reads a non-empty str or bin value into a new slice (an empty or
// nil one is left to msgpack, which tells them apart).
func (r *reader) bytes(dst *[]byte) bool {
	b, ok := r.text()
	if !ok || len(b) == 0 {
		return false
	}
	*dst = append([]byte(nil), b...)
	return true
}

// hexText reads "0x" and exactly 2*len(dst) hex digits, what
// [domain.Hash32] and [domain.Address] marshal to.
func (r *reader) hexText(dst []byte) bool {
	b, ok := r.text()
	if !ok || len(b) != 2+2*len(dst) || b[0] != '0' || b[1] != 'x' {
		return false
	}
	_, err := hex.Decode(dst, b[2:])
	return err == nil
}

// amount reads a decimal amount; past 19 digits through domain's parser.
func (r *reader) amount(dst *domain.Amount) bool {
	b, ok := r.text()
	if !ok || len(b) == 0 {
		return false
	}
	if len(b) > 19 {
		a, err := domain.ParseAmount(string(b))
		*dst = a
		return err == nil
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
		v = v*10 + uint64(c-'0')
	}
	*dst = domain.AmountFromUint64(v)
	return true
}
