package topics

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/bridgelog/bridgelog/domain"
)

// TestPayloadTablesDerive: every payload struct the fast path reads
// derives a table, so a field it has no reader for fails here, naming it;
// and each table, nested ones included, holds exactly the keys msgpack
// writes for that struct across lifecycleSamples (which so must set every
// field, for the fast path's tests to cover it).
func TestPayloadTablesDerive(t *testing.T) {
	written := map[*payloadTable]map[string]bool{}
	tables := map[reflect.Type]*payloadTable{}
	for _, v := range lifecycleSamples(t) {
		typ := reflect.TypeOf(v).Elem()
		table, ok := tables[typ]
		if !ok {
			var err error
			if table, err = deriveTable(typ); err != nil {
				t.Fatal(err)
			}
			tables[typ] = table
		}
		b, err := EncodePayload(v)
		if err != nil {
			t.Fatal(err)
		}
		var generic map[string]any
		if err := msgpack.Unmarshal(b, &generic); err != nil {
			t.Fatal(err)
		}
		collectKeys(t, table, generic, written)
	}
	for table, keys := range written {
		var derived []string
		for _, f := range table.fields {
			derived = append(derived, f.key)
		}
		var want []string
		for k := range keys {
			want = append(want, k)
		}
		slices.Sort(derived)
		slices.Sort(want)
		if !slices.Equal(derived, want) {
			t.Errorf("%s: derived keys %q, msgpack writes %q", table.name, derived, want)
		}
	}
}

// collectKeys adds the keys of m, a decoded map of table's struct, and of
// its nested maps to written.
func collectKeys(t *testing.T, table *payloadTable, m map[string]any, written map[*payloadTable]map[string]bool) {
	t.Helper()
	if written[table] == nil {
		written[table] = map[string]bool{}
	}
	for k, v := range m {
		written[table][k] = true
		i := table.index(k, 0)
		if i < 0 {
			t.Fatalf("%s: msgpack writes %q, not in the derived table", table.name, k)
		}
		switch f := table.fields[i]; f.kind {
		case kindStruct:
			collectKeys(t, f.nested, v.(map[string]any), written)
		case kindStructs:
			for _, e := range v.([]any) {
				collectKeys(t, f.nested, e.(map[string]any), written)
			}
		}
	}
}

// TestDeriveTable: tags are read as msgpack reads them, and a field or
// struct option the fast path cannot read refuses the whole struct.
func TestDeriveTable(t *testing.T) {
	type leaf struct {
		N uint32 `msgpack:"n"`
	}
	type plain struct {
		A      uint64 `msgpack:"a"`
		Named  string
		Leaves []leaf          `msgpack:"leaves,omitempty"`
		Hash   domain.Hash32   `msgpack:"hash"`
		Skip   float64         `msgpack:"-"`
		hidden float64         // msgpack leaves unexported fields out
		Proof  []domain.Hash32 `msgpack:"proof"`
	}
	table, err := deriveTable(reflect.TypeFor[plain]())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range table.fields {
		got = append(got, f.key)
	}
	if want := []string{"a", "Named", "leaves", "hash", "proof"}; !slices.Equal(got, want) {
		t.Fatalf("keys %q, want %q", got, want)
	}
	if f := table.fields[2]; f.kind != kindStructs || f.nested.fields[0].kind != kindUint32 {
		t.Fatalf("leaves read as %+v", f)
	}

	for name, typ := range map[string]reflect.Type{
		"float":          reflect.TypeFor[struct{ F float64 }](),
		"time":           reflect.TypeFor[struct{ At time.Time }](),
		"pointer":        reflect.TypeFor[struct{ P *uint64 }](),
		"map":            reflect.TypeFor[struct{ M map[string]uint64 }](),
		"nested unknown": reflect.TypeFor[struct{ L []struct{ I int8 } }](),
		"embedded":       reflect.TypeFor[struct{ leaf }](),
		"inline": reflect.TypeFor[struct {
			L leaf `msgpack:"l,inline"`
		}](),
		"as_array": reflect.TypeFor[struct {
			_msgpack struct{} `msgpack:",as_array"`
			A        uint64
		}](),
		"duplicate key": reflect.TypeFor[struct {
			A uint64 `msgpack:"a"`
			B uint64 `msgpack:"a"`
		}](),
	} {
		if _, err := deriveTable(typ); !errors.Is(err, errUnreadableField) {
			t.Errorf("%s: derived %v, want errUnreadableField", name, err)
		}
	}
}
