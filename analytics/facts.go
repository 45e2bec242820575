package analytics

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// facts are the payload fields the analytics columns come from, decoded
// straight from the msgpack payload by their tags, so they work for every
// event type that has them, including types this binary does not know.
type facts struct {
	ChainID     uint64        `msgpack:"chain_id"`
	TxHash      domain.Hash32 `msgpack:"tx_hash"`
	MintTxHash  domain.Hash32 `msgpack:"mint_tx_hash"`
	ClaimTxHash domain.Hash32 `msgpack:"claim_tx_hash"`
	GasUsed     uint64        `msgpack:"gas_used"`
	Status      string        `msgpack:"status"`
	Reason      string        `msgpack:"reason"`
	Ref         refFacts      `msgpack:"ref"`
}

type refFacts struct {
	ChainID uint64        `msgpack:"chain_id"`
	TxHash  domain.Hash32 `msgpack:"tx_hash"`
}

// factsOf decodes a payload's facts; false when the payload's fields have
// other types than these (a foreign event), which gives no facts.
//
// msgpack's reflection into facts cost a quarter of a row, as much as the
// envelope and the audit keys together: it walks every field of the
// payload and allocates each key. factsOf walks the bytes itself when the
// payload has the shape EncodePayload writes (a map with string keys;
// unsigned ints, strings, and hashes as text where facts has them), skips
// what facts does not name, and leaves any other shape to msgpack, so its
// answer is always msgpack's (FuzzFactsAgreeWithMsgpack).
func factsOf(payload []byte) (facts, bool) {
	r := msgReader{b: payload}
	if f, ok := r.facts(); ok {
		return f, true
	}
	var f facts
	return f, topics.DecodePayload(payload, &f) == nil
}

// msgReader reads msgpack from a byte slice; ok turns false at the first
// thing it does not read, and stays false.
type msgReader struct {
	b  []byte
	ok bool
}

// maxSkipDepth bounds the nesting skip follows; deeper payloads go to
// msgpack.
const maxSkipDepth = 64

func (r *msgReader) facts() (f facts, ok bool) {
	r.ok = true
	for range r.mapLen() {
		switch string(r.str()) { // (no allocation for a switch on the bytes)
		case "chain_id":
			f.ChainID = r.uint()
		case "tx_hash":
			r.hash(&f.TxHash)
		case "mint_tx_hash":
			r.hash(&f.MintTxHash)
		case "claim_tx_hash":
			r.hash(&f.ClaimTxHash)
		case "gas_used":
			f.GasUsed = r.uint()
		case "status":
			f.Status = string(r.str())
		case "reason":
			f.Reason = string(r.str())
		case "ref":
			// as msgpack decodes into a struct field: what the map does not
			// name keeps its value
			for n := r.mapLen(); n > 0 && r.ok; n-- {
				switch string(r.str()) {
				case "chain_id":
					f.Ref.ChainID = r.uint()
				case "tx_hash":
					r.hash(&f.Ref.TxHash)
				default:
					r.skip(0)
				}
			}
		default:
			r.skip(0)
		}
		if !r.ok {
			return f, false
		}
	}
	return f, r.ok
}

// take is the next n bytes.
func (r *msgReader) take(n uint64) []byte {
	if !r.ok || n > uint64(len(r.b)) {
		r.ok = false
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *msgReader) code() byte {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

// length reads an n-byte big-endian length.
func (r *msgReader) length(n uint64) uint64 {
	b := r.take(n)
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.BigEndian.Uint16(b))
	case 4:
		return uint64(binary.BigEndian.Uint32(b))
	case 8:
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

func (r *msgReader) mapLen() int {
	switch c := r.code(); {
	case c >= 0x80 && c <= 0x8f:
		return int(c & 0x0f)
	case c == 0xde:
		return int(r.length(2))
	case c == 0xdf:
		return int(r.length(4))
	}
	r.ok = false
	return 0
}

// str reads the bytes of a str or bin, which msgpack takes for each
// other (it writes text-marshalled hashes as bin); nil or anything else
// is not ok.
func (r *msgReader) str() []byte {
	switch c := r.code(); {
	case c >= 0xa0 && c <= 0xbf:
		return r.take(uint64(c & 0x1f))
	case c >= 0xd9 && c <= 0xdb:
		return r.take(r.length(1 << (c - 0xd9)))
	case c >= 0xc4 && c <= 0xc6:
		return r.take(r.length(1 << (c - 0xc4)))
	}
	r.ok = false
	return nil
}

// uint reads an unsigned int (a negative one, nil or a float: not ok).
func (r *msgReader) uint() uint64 {
	switch c := r.code(); {
	case c <= 0x7f:
		return uint64(c)
	case c >= 0xcc && c <= 0xcf:
		return r.length(1 << (c - 0xcc))
	}
	r.ok = false
	return 0
}

// hash reads a hash as msgpack does (a TextUnmarshaler), and as
// Hash32.UnmarshalText parses it, without its copy of the text.
func (r *msgReader) hash(h *domain.Hash32) {
	digits := bytes.TrimPrefix(bytes.TrimPrefix(r.str(), []byte("0x")), []byte("0X"))
	if !r.ok || len(digits) != 2*len(h) {
		r.ok = false
		return
	}
	if _, err := hex.Decode(h[:], digits); err != nil {
		r.ok = false
	}
}

// skip reads past one value of any type.
func (r *msgReader) skip(depth int) {
	if depth > maxSkipDepth {
		r.ok = false
		return
	}
	c := r.code()
	switch {
	case c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3: // fixints, nil, bools
	case c >= 0xa0 && c <= 0xbf: // fixstr
		r.take(uint64(c & 0x1f))
	case c >= 0x80 && c <= 0x8f: // fixmap
		r.skipN(2*int(c&0x0f), depth)
	case c >= 0x90 && c <= 0x9f: // fixarray
		r.skipN(int(c&0x0f), depth)
	case c >= 0xc4 && c <= 0xc6: // bin 8, 16, 32
		r.take(r.length(1 << (c - 0xc4)))
	case c >= 0xc7 && c <= 0xc9: // ext 8, 16, 32: length, type, data
		n := r.length(1 << (c - 0xc7))
		r.take(1 + n)
	case c == 0xca || c == 0xcb: // float 32, 64
		r.take(4 << (c - 0xca))
	case c >= 0xcc && c <= 0xcf: // uint 8 … 64
		r.take(1 << (c - 0xcc))
	case c >= 0xd0 && c <= 0xd3: // int 8 … 64
		r.take(1 << (c - 0xd0))
	case c >= 0xd4 && c <= 0xd8: // fixext 1 … 16: type, data
		r.take(1 + 1<<(c-0xd4))
	case c >= 0xd9 && c <= 0xdb: // str 8, 16, 32
		r.take(r.length(1 << (c - 0xd9)))
	case c == 0xdc || c == 0xdd: // array 16, 32
		r.skipN(int(r.length(2<<(c-0xdc))), depth)
	case c == 0xde || c == 0xdf: // map 16, 32
		r.skipN(2*int(r.length(2<<(c-0xde))), depth)
	default: // 0xc1, never used
		r.ok = false
	}
}

func (r *msgReader) skipN(n, depth int) {
	for i := 0; i < n && r.ok; i++ {
		r.skip(depth + 1)
	}
}
