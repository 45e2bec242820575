// Package domain holds bridgelog's events, value types and decisions. It is
// pure: no I/O, no clocks it was not handed, no globals.
package domain

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// ErrInvalidValue wraps every parse error of a value type.
var ErrInvalidValue = errors.New("invalid value")

// Hash32 is a 32-byte hash (transaction hash, block hash, merkle node).
type Hash32 [32]byte

// Hex returns the 0x-prefixed lower-case hex form.
func (h Hash32) Hex() string {
	var b [2 + 2*len(h)]byte // one allocation (the string), not two
	return string(h.AppendHex(b[:0]))
}

// appendPrefixedHex appends src as Hex writes it, 0x and lowercase digits.
func appendPrefixedHex(dst, src []byte) []byte {
	return hex.AppendEncode(append(dst, '0', 'x'), src)
}

// AppendHex appends h as Hex writes it, without allocating.
func (h Hash32) AppendHex(dst []byte) []byte { return appendPrefixedHex(dst, h[:]) }

// AppendHex appends a as Hex writes it, without allocating.
func (a Address) AppendHex(dst []byte) []byte { return appendPrefixedHex(dst, a[:]) }

func (h Hash32) String() string { return h.Hex() }

// IsZero reports whether h is all zeroes.
func (h Hash32) IsZero() bool { return h == Hash32{} }

// MarshalText encodes h as 0x-hex (JSON and msgpack both use it).
func (h Hash32) MarshalText() ([]byte, error) { return []byte(h.Hex()), nil }

// UnmarshalText parses 0x-hex of exactly 32 bytes.
func (h *Hash32) UnmarshalText(b []byte) error {
	return decodeFixedHex(string(b), h[:], "hash")
}

// ParseHash32 parses 0x-hex of exactly 32 bytes.
func ParseHash32(s string) (Hash32, error) {
	var h Hash32
	return h, h.UnmarshalText([]byte(s))
}

// Address is a 20-byte EVM account or contract address.
type Address [20]byte

// Hex returns the 0x-prefixed lower-case hex form.
func (a Address) Hex() string {
	var b [2 + 2*len(a)]byte
	return string(a.AppendHex(b[:0]))
}

func (a Address) String() string { return a.Hex() }

// MarshalText encodes a as 0x-hex.
func (a Address) MarshalText() ([]byte, error) { return []byte(a.Hex()), nil }

// UnmarshalText parses 0x-hex of exactly 20 bytes.
func (a *Address) UnmarshalText(b []byte) error {
	return decodeFixedHex(string(b), a[:], "address")
}

// ParseAddress parses 0x-hex of exactly 20 bytes.
func ParseAddress(s string) (Address, error) {
	var a Address
	return a, a.UnmarshalText([]byte(s))
}

func decodeFixedHex(s string, dst []byte, what string) error {
	raw := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(raw) != 2*len(dst) {
		return fmt.Errorf("%w: %s %q: want %d hex digits, got %d", ErrInvalidValue, what, s, 2*len(dst), len(raw))
	}
	if _, err := hex.Decode(dst, []byte(raw)); err != nil {
		return fmt.Errorf("%w: %s %q: %v", ErrInvalidValue, what, s, err)
	}
	return nil
}

// Amount is a non-negative token amount in base units (wei). The zero
// value is 0. It is immutable through its methods.
type Amount struct{ v big.Int }

// NewAmount returns an Amount of n base units; negative values are refused.
func NewAmount(n *big.Int) (Amount, error) {
	var a Amount
	if n == nil || n.Sign() < 0 {
		return a, fmt.Errorf("%w: amount %v is negative or nil", ErrInvalidValue, n)
	}
	a.v.Set(n)
	return a, nil
}

// AmountFromUint64 returns an Amount of n base units.
func AmountFromUint64(n uint64) Amount {
	var a Amount
	a.v.SetUint64(n)
	return a
}

// ParseAmount parses a non-negative decimal integer.
func ParseAmount(s string) (Amount, error) {
	var a Amount
	return a, a.UnmarshalText([]byte(s))
}

// Big returns a copy of the amount as a big.Int.
func (a Amount) Big() *big.Int { return new(big.Int).Set(&a.v) }

// Add returns a+b.
func (a Amount) Add(b Amount) Amount {
	var r Amount
	r.v.Add(&a.v, &b.v)
	return r
}

// Cmp compares a and b like big.Int.Cmp.
func (a Amount) Cmp(b Amount) int { return a.v.Cmp(&b.v) }

// IsZero reports whether a is 0.
func (a Amount) IsZero() bool { return a.v.Sign() == 0 }

func (a Amount) String() string {
	if a.v.IsUint64() {
		return strconv.FormatUint(a.v.Uint64(), 10) // one allocation; big.Int's String takes three
	}
	return a.v.String()
}

// AppendDecimal appends a as String writes it, without allocating.
func (a Amount) AppendDecimal(dst []byte) []byte {
	if a.v.IsUint64() {
		return strconv.AppendUint(dst, a.v.Uint64(), 10)
	}
	return a.v.Append(dst, 10)
}

// MarshalText encodes a as a decimal string (exact in JSON, SQL and msgpack).
func (a Amount) MarshalText() ([]byte, error) { return a.v.MarshalText() }

// maxAmountDigits bounds parsing: 2^256 has 78 digits.
const maxAmountDigits = 78

// UnmarshalText parses a non-negative decimal integer of at most 78 digits.
func (a *Amount) UnmarshalText(b []byte) error {
	if len(b) == 0 || len(b) > maxAmountDigits {
		return fmt.Errorf("%w: amount %q: want 1..%d decimal digits", ErrInvalidValue, b, maxAmountDigits)
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return fmt.Errorf("%w: amount %q: not a non-negative decimal integer", ErrInvalidValue, b)
		}
	}
	if _, ok := a.v.SetString(string(b), 10); !ok {
		return fmt.Errorf("%w: amount %q", ErrInvalidValue, b)
	}
	return nil
}
