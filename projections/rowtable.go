package projections

import (
	"database/sql"
	"fmt"
	"slices"
	"unsafe"
)

// A table whose rows a projection keeps in a Go struct is declared once,
// as a [rowTable]: each column binds its name and type to the field of
// the row that holds it. The table's DDL, the order rows are written and
// digested in, the staged (bulk) layout, the write arguments and the scan
// destinations all come from that one list, so adding a column is one
// line here and one in the fold that sets it:
//
//	var fooTable = declareTable(Versioned("foo", 1), []string{"id"}, nil,
//		i64Col("id", func(r *fooRow) *int64 { return &r.id }),
//		textCol("reason", func(r *fooRow) *sql.NullString { return &r.reason }),
//	)

// rowTable is a [Table] declared by the fields of its row struct T.
type rowTable[T any] struct {
	Table
	cols   []rowColumn[T]
	fields struct{ nullText, nullInt, text, int, int32, uint32, enum []fieldAt } // the columns by kind
}

// fieldAt is a column's place in a row (its index) and in T.
type fieldAt struct {
	col int
	off uintptr
}

// rowColumn is one column of a [rowTable]: its declaration, and where in
// a row T the field that holds it is. Rows are encoded on a rebuild's hot
// path, several hundred thousand of them: the field is found once, when
// the table is declared, as an offset into T, so encoding a row is a loop
// of loads as cheap as code written by hand (a call per column through
// the accessor was three times slower).
type rowColumn[T any] struct {
	Column
	kind  fieldKind
	field func(*T) unsafe.Pointer // the accessor, called once by declareTable
	off   uintptr                 // the field's offset in T
	enum  *enumCodec              // an enumField's names
}

// enumCodec writes and reads an enumeration's value as its name.
type enumCodec struct {
	name  func(unsafe.Pointer) string
	parse func(string, unsafe.Pointer) bool
}

// fieldKind is the Go type of a column's field.
type fieldKind uint8

const (
	nullTextField fieldKind = iota + 1 // sql.NullString: nullable Text
	nullIntField                       // sql.NullInt64: nullable Integer
	textField                          // string: Text NOT NULL
	intField                           // int64: Integer NOT NULL
	int32Field                         // int32: Integer NOT NULL (a partition)
	uint32Field                        // uint32: Integer NOT NULL
	enumField                          // a uint8 enumeration: Text NOT NULL, its name
)

func (k fieldKind) size() uintptr {
	switch k {
	case nullTextField:
		return unsafe.Sizeof(sql.NullString{})
	case nullIntField:
		return unsafe.Sizeof(sql.NullInt64{})
	case textField:
		return unsafe.Sizeof("")
	case intField:
		return unsafe.Sizeof(int64(0))
	case enumField:
		return unsafe.Sizeof(uint8(0))
	}
	return unsafe.Sizeof(int32(0))
}

func textCol[T any](name string, f func(*T) *sql.NullString) rowColumn[T] {
	return rowColumn[T]{Column: Column{Name: name, Type: Text, Nullable: true}, kind: nullTextField,
		field: func(r *T) unsafe.Pointer { return unsafe.Pointer(f(r)) }}
}

func intCol[T any](name string, f func(*T) *sql.NullInt64) rowColumn[T] {
	return rowColumn[T]{Column: Column{Name: name, Type: Integer, Nullable: true}, kind: nullIntField,
		field: func(r *T) unsafe.Pointer { return unsafe.Pointer(f(r)) }}
}

func strCol[T any](name string, f func(*T) *string) rowColumn[T] {
	return rowColumn[T]{Column: Column{Name: name, Type: Text}, kind: textField,
		field: func(r *T) unsafe.Pointer { return unsafe.Pointer(f(r)) }}
}

func i64Col[T any](name string, f func(*T) *int64) rowColumn[T] {
	return rowColumn[T]{Column: Column{Name: name, Type: Integer}, kind: intField,
		field: func(r *T) unsafe.Pointer { return unsafe.Pointer(f(r)) }}
}

func i32Col[T any](name string, f func(*T) *int32) rowColumn[T] {
	return rowColumn[T]{Column: Column{Name: name, Type: Integer}, kind: int32Field,
		field: func(r *T) unsafe.Pointer { return unsafe.Pointer(f(r)) }}
}

func u32Col[T any](name string, f func(*T) *uint32) rowColumn[T] {
	return rowColumn[T]{Column: Column{Name: name, Type: Integer}, kind: uint32Field,
		field: func(r *T) unsafe.Pointer { return unsafe.Pointer(f(r)) }}
}

// enumCol stores an enumeration as its name (String); values are every
// value a stored name can be read back as.
func enumCol[T any, E interface {
	~uint8
	fmt.Stringer
}](name string, f func(*T) *E, values ...E) rowColumn[T] {
	codec := &enumCodec{
		name: func(p unsafe.Pointer) string { return (*(*E)(p)).String() },
		parse: func(s string, p unsafe.Pointer) bool {
			for _, v := range values {
				if v.String() == s {
					*(*E)(p) = v
					return true
				}
			}
			return false
		},
	}
	return rowColumn[T]{Column: Column{Name: name, Type: Text}, kind: enumField, enum: codec,
		field: func(r *T) unsafe.Pointer { return unsafe.Pointer(f(r)) }}
}

// declareTable declares a table of rows T. It panics on a declaration
// [Table.Validate] refuses or an accessor that does not return a field of
// its row: a table declared wrong is a bug, found at start-up.
func declareTable[T any](name string, key []string, indexes []Index, cols ...rowColumn[T]) rowTable[T] {
	t := rowTable[T]{Table: Table{Name: name, PrimaryKey: key, Indexes: indexes}, cols: cols}
	row := new(T)
	base, size := uintptr(unsafe.Pointer(row)), unsafe.Sizeof(*row)
	for i := range t.cols {
		c := &t.cols[i]
		at := uintptr(c.field(row))
		if at < base || at+c.kind.size() > base+size {
			panic(fmt.Sprintf("projections: table %s: column %s: the accessor returns no field of %T", name, c.Name, *row))
		}
		c.off = at - base
		t.Columns = append(t.Columns, c.Column)
		f := fieldAt{col: i, off: c.off}
		switch c.kind {
		case nullTextField:
			t.fields.nullText = append(t.fields.nullText, f)
		case nullIntField:
			t.fields.nullInt = append(t.fields.nullInt, f)
		case textField:
			t.fields.text = append(t.fields.text, f)
		case intField:
			t.fields.int = append(t.fields.int, f)
		case uint32Field:
			t.fields.uint32 = append(t.fields.uint32, f)
		case enumField:
			t.fields.enum = append(t.fields.enum, f)
		default:
			t.fields.int32 = append(t.fields.int32, f)
		}
	}
	if err := t.Validate(); err != nil {
		panic(fmt.Sprintf("projections: %v", err))
	}
	return t
}

// args appends r's values in column order, as a takes them (see colArgs).
func (t *rowTable[T]) args(r *T, dst []any, a colArgs) []any {
	n := len(dst)
	dst = slices.Grow(dst, len(t.cols))[:n+len(t.cols)]
	out, base := dst[n:], unsafe.Pointer(r)
	// A loop per kind of field, rather than a switch per column, is what
	// keeps this as fast as code written by hand.
	for _, f := range t.fields.nullText {
		if v := (*sql.NullString)(unsafe.Add(base, f.off)); !v.Valid {
			out[f.col] = nil
		} else if a {
			out[f.col] = &v.String
		} else {
			out[f.col] = v.String
		}
	}
	for _, f := range t.fields.nullInt {
		if v := (*sql.NullInt64)(unsafe.Add(base, f.off)); !v.Valid {
			out[f.col] = nil
		} else if a {
			out[f.col] = &v.Int64
		} else {
			out[f.col] = v.Int64
		}
	}
	for _, f := range t.fields.text {
		if v := (*string)(unsafe.Add(base, f.off)); a {
			out[f.col] = v
		} else {
			out[f.col] = *v
		}
	}
	for _, f := range t.fields.int {
		if v := (*int64)(unsafe.Add(base, f.off)); a {
			out[f.col] = v
		} else {
			out[f.col] = *v
		}
	}
	for _, f := range t.fields.int32 {
		out[f.col] = *(*int32)(unsafe.Add(base, f.off)) // a staged table takes an int32 by value
	}
	for _, f := range t.fields.uint32 {
		out[f.col] = int64(*(*uint32)(unsafe.Add(base, f.off)))
	}
	for _, f := range t.fields.enum {
		out[f.col] = t.cols[f.col].enum.name(unsafe.Add(base, f.off))
	}
	return dst
}

// scan reads one row, selected with the table's columns in order, into r.
func (t *rowTable[T]) scan(sr RowScanner, r *T) error {
	base := unsafe.Pointer(r)
	dests := make([]any, len(t.cols))
	for i := range t.cols {
		c := &t.cols[i]
		p := unsafe.Add(base, c.off)
		switch c.kind {
		case nullTextField:
			dests[i] = (*sql.NullString)(p)
		case nullIntField:
			dests[i] = (*sql.NullInt64)(p)
		case textField:
			dests[i] = (*string)(p)
		case intField:
			dests[i] = (*int64)(p)
		case uint32Field:
			dests[i] = (*uint32)(p)
		case enumField:
			dests[i] = new(string) // its name, parsed below
		default:
			dests[i] = (*int32)(p)
		}
	}
	if err := sr.Scan(dests...); err != nil {
		return err
	}
	for _, f := range t.fields.enum {
		if name := *dests[f.col].(*string); !t.cols[f.col].enum.parse(name, unsafe.Add(base, f.off)) {
			return fmt.Errorf("%s: column %s: unknown value %q", t.Name, t.cols[f.col].Name, name)
		}
	}
	return nil
}
