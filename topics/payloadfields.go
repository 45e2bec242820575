package topics

import (
	"encoding"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/bridgelog/bridgelog/domain"
)

// The fast payload decoder's field tables are derived from the payload
// structs' msgpack tags, once at start-up, so the wire format is declared
// in one place: domain. A table lists each field's key, its place in the
// struct and how it is coded; the decoder (payloadfast.go) walks it with
// the same readers for every type.

// errUnreadableField is a payload field the fast decoder has no reader for
// (a type or a tag option msgpack would treat in a way of its own). Its
// struct is left to msgpack, correct but slow; TestPayloadTablesDerive
// names the field.
var errUnreadableField = errors.New("a field the fast payload decoder cannot read")

// fieldKind is how a field's value is coded on the wire, so which reader
// reads it.
type fieldKind uint8

const (
	kindUint64  fieldKind = iota + 1
	kindUint32            // a uint64 that must fit in 32 bits
	kindInt               // a non-negative int
	kindBool              // true or false
	kindString            // str or bin
	kindBytes             // a non-empty str or bin
	kindHex               // "0x" and hex: domain.Hash32, domain.Address
	kindAmount            // decimal text: domain.Amount
	kindHashes            // a non-empty array of kindHex hashes
	kindStruct            // a nested map of fields
	kindStructs           // a non-empty array of nested maps
)

// payloadField is one field of a payload struct.
type payloadField struct {
	key    string
	kind   fieldKind
	offset uintptr       // in the struct
	size   uintptr       // kindHex: bytes in the array; kindStructs: bytes per element
	nested *payloadTable // kindStruct, kindStructs
	slice  reflect.Type  // kindStructs: the slice to allocate
}

// payloadTable is a payload struct's fields in declaration order, the
// order msgpack writes them in.
type payloadTable struct {
	name   string // the struct's type, for messages
	fields []payloadField
}

// index returns the field keyed k, trying next (the field after the last
// one read) first: in what msgpack writes, it always is.
func (t *payloadTable) index(k string, next int) int {
	if next < len(t.fields) && t.fields[next].key == k {
		return next
	}
	for i := range t.fields {
		if t.fields[i].key == k {
			return i
		}
	}
	return -1
}

// tableOf derives T's table; nil if T has a field the decoder cannot read.
func tableOf[T any]() *payloadTable {
	t, _ := deriveTable(reflect.TypeFor[T]())
	return t
}

// deriveTable reads struct type t's fields and msgpack tags as msgpack
// does (exported fields, named by the tag or else the field, "-" left
// out), and refuses, wrapping errUnreadableField, any field or struct
// option it has no reader for.
func deriveTable(t reflect.Type) (*payloadTable, error) {
	if t.Kind() != reflect.Struct || decodesItself(t) {
		return nil, fmt.Errorf("%v: not a plain struct: %w", t, errUnreadableField)
	}
	table := &payloadTable{name: t.String()}
	seen := make(map[string]bool, t.NumField())
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("msgpack")
		if tag == "-" || !sf.IsExported() && !sf.Anonymous && sf.Name != "_msgpack" {
			continue // msgpack leaves these out; _msgpack holds struct options
		}
		key, opts, _ := strings.Cut(tag, ",")
		if key == "" {
			key = sf.Name
		}
		if sf.Anonymous || sf.Name == "_msgpack" || opts != "" && opts != "omitempty" || seen[key] {
			return nil, fmt.Errorf("%v.%s (msgpack %q): %w", t, sf.Name, tag, errUnreadableField)
		}
		seen[key] = true
		f, err := fieldOf(sf.Type)
		if err != nil {
			return nil, fmt.Errorf("%v.%s: %w", t, sf.Name, err)
		}
		f.key, f.offset = key, sf.Offset
		table.fields = append(table.fields, f)
	}
	return table, nil
}

// fieldOf says how a field of type ft is read.
func fieldOf(ft reflect.Type) (payloadField, error) {
	switch ft {
	case reflect.TypeFor[domain.Hash32](), reflect.TypeFor[domain.Address]():
		return payloadField{kind: kindHex, size: ft.Size()}, nil
	case reflect.TypeFor[domain.Amount]():
		return payloadField{kind: kindAmount}, nil
	case reflect.TypeFor[[]domain.Hash32]():
		return payloadField{kind: kindHashes}, nil
	}
	if decodesItself(ft) {
		return payloadField{}, fmt.Errorf("%v decodes itself: %w", ft, errUnreadableField)
	}
	switch ft.Kind() {
	case reflect.Uint64:
		return payloadField{kind: kindUint64}, nil
	case reflect.Uint32:
		return payloadField{kind: kindUint32}, nil
	case reflect.Int:
		return payloadField{kind: kindInt}, nil
	case reflect.Bool:
		return payloadField{kind: kindBool}, nil
	case reflect.String:
		return payloadField{kind: kindString}, nil
	case reflect.Struct:
		nested, err := deriveTable(ft)
		return payloadField{kind: kindStruct, nested: nested}, err
	case reflect.Slice:
		elem := ft.Elem()
		if elem.Kind() == reflect.Uint8 && !decodesItself(elem) {
			return payloadField{kind: kindBytes}, nil
		}
		if elem.Kind() == reflect.Struct {
			nested, err := deriveTable(elem)
			return payloadField{kind: kindStructs, size: elem.Size(), nested: nested, slice: ft}, err
		}
	}
	return payloadField{}, fmt.Errorf("%v: %w", ft, errUnreadableField)
}

var selfDecoders = []reflect.Type{
	reflect.TypeFor[msgpack.CustomDecoder](),
	reflect.TypeFor[msgpack.Unmarshaler](),
	reflect.TypeFor[encoding.BinaryUnmarshaler](),
	reflect.TypeFor[encoding.TextUnmarshaler](),
}

// decodesItself reports whether msgpack hands t's values to a method of
// t's own instead of decoding them by kind.
func decodesItself(t reflect.Type) bool {
	for _, d := range selfDecoders {
		if t.Implements(d) || reflect.PointerTo(t).Implements(d) {
			return true
		}
	}
	return false
}
