package twophase

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// Hash is a 32-byte digest: an event id, a template hash, a transaction id.
type Hash [32]byte

// Hex renders h as 0x-prefixed lower-case hex.
func (h Hash) Hex() string { return "0x" + hex.EncodeToString(h[:]) }

func (h Hash) String() string { return h.Hex() }

// Short is the first 8 hex digits, for log lines.
func (h Hash) Short() string { return hex.EncodeToString(h[:4]) }

// IsZero reports whether h is all zeros.
func (h Hash) IsZero() bool { return h == Hash{} }

// Less orders hashes by their bytes: the seed's "lower hash".
func (h Hash) Less(o Hash) bool { return bytes.Compare(h[:], o[:]) < 0 }

// MarshalText renders h as hex, so logs and JSON show it readably.
func (h Hash) MarshalText() ([]byte, error) { return []byte(h.Hex()), nil }

// UnmarshalText parses what MarshalText wrote.
func (h *Hash) UnmarshalText(b []byte) error {
	v, err := ParseHash(string(b))
	*h = v
	return err
}

// ParseHash parses 64 hex digits, with or without 0x.
func ParseHash(s string) (Hash, error) {
	var h Hash
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
	}
	if len(s) != 2*len(h) {
		return h, fmt.Errorf("hash %q: want %d hex digits", s, 2*len(h))
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, fmt.Errorf("hash %q: %w", s, err)
	}
	return h, nil
}

// taggedHash is sha256 over a domain-separation tag, a zero byte and the
// data: a digest of one kind can never be taken for another's.
func taggedHash(tag string, data ...[]byte) Hash {
	d := sha256.New()
	d.Write([]byte(tag))
	d.Write([]byte{0})
	for _, p := range data {
		d.Write(p)
	}
	var h Hash
	d.Sum(h[:0])
	return h
}

// Domain-separation tags. They are part of the protocol: never change one.
const (
	tagEvent    = "bridgelog/twophase/signing-event/v1"
	tagTemplate = "bridgelog/twophase/tx-template/v1"
	tagGroup    = "bridgelog/twophase/group/v1"
	tagEnvelope = "bridgelog/twophase/envelope/v1"
	tagPayload  = "bridgelog/twophase/payload/v1"
)

// PeerID names a member of the signing group. IDs are compared as byte
// strings wherever the protocol breaks ties ("lower proposer").
type PeerID string

// MaxPeerIDBytes bounds a member id on the wire.
const MaxPeerIDBytes = 64

// Outpoint names a transaction output: the transaction id and index.
type Outpoint struct {
	TxID  Hash   `msgpack:"txid" json:"txid"`
	Index uint32 `msgpack:"index" json:"index"`
}

func (o Outpoint) String() string { return fmt.Sprintf("%s:%d", o.TxID.Hex(), o.Index) }

// Less orders outpoints by transaction id, then index.
func (o Outpoint) Less(p Outpoint) bool {
	if c := bytes.Compare(o.TxID[:], p.TxID[:]); c != 0 {
		return c < 0
	}
	return o.Index < p.Index
}

// Script is an output's locking script with its version (Kaspa's
// ScriptPublicKey); opaque to the protocol, compared byte for byte.
type Script struct {
	Version uint16 `msgpack:"version" json:"version"`
	Bytes   []byte `msgpack:"bytes" json:"bytes"`
}

// Equal compares two scripts.
func (s Script) Equal(o Script) bool { return s.Version == o.Version && bytes.Equal(s.Bytes, o.Bytes) }

// MaxScriptBytes bounds a script on the wire (Kaspa's standard scripts are
// well below it).
const MaxScriptBytes = 10_000

func (w *writer) script(s Script) { w.u16(s.Version); w.bytes(s.Bytes) }

func (r *reader) script(what string) Script {
	v := r.u16(what)
	return Script{Version: v, Bytes: r.bytes(MaxScriptBytes, what)}
}
