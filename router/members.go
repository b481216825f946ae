package router

import (
	"reflect"
	"strings"
	"sync"

	"github.com/mcpwire/mcpwire/codec"
)

// The members of a struct type as the decoder sees them. Which JSON name
// lands in which field (tag names, promotion from embedded structs, name
// conflicts) is the decoder's rule, not ours: structFields lists every
// field a name could reach, in declaration order, and keeps those that
// codec.ExactTarget says the decoder fills.

// field is one member of a struct type: its JSON name and its field.
type field struct {
	name  string       // JSON name: the tag's name, else the Go name
	index []int        // path through embedded structs
	typ   reflect.Type // the field's type
	// optional: the member may be absent (required.go): the field is a
	// pointer, is tagged omitempty or omitzero, or is promoted from an
	// embedded pointer.
	optional bool
	// viaPtr: promoted from an embedded pointer; else off is the field's
	// offset in the struct.
	viaPtr bool
	off    uintptr
}

// fieldCache maps a struct type to its []field, filled when a typed
// handler is built.
var fieldCache sync.Map

// structFields returns the members of struct type t in declaration order,
// embedded structs flattened in place: the fields the decoder fills, each
// under the one name that reaches it.
func structFields(t reflect.Type) []field {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]field)
	}
	var all []field
	collectFields(t, nil, 0, false, map[reflect.Type]bool{t: true}, &all)
	root := reflect.New(t)
	at := make([]uintptr, len(all))
	for i := range all {
		at[i] = fieldValue(root.Elem(), all[i].index).UnsafeAddr() // allocates embedded pointers
	}
	fields := make([]field, 0, len(all))
	for i, f := range all {
		p := codec.ExactTarget(root.Interface(), f.name)
		if p != nil && reflect.ValueOf(p).Pointer() == at[i] && reflect.TypeOf(p).Elem() == f.typ {
			fields = append(fields, f)
		}
	}
	v, _ := fieldCache.LoadOrStore(t, fields)
	return v.([]field)
}

// collectFields appends to out every field of t (reached through index at
// offset base, or through an embedded pointer when viaPtr) that a member
// name could reach: exported fields not tagged `json:"-"`, and the fields
// of embedded structs without a tag name, in declaration order.
func collectFields(t reflect.Type, index []int, base uintptr, viaPtr bool, seen map[reflect.Type]bool, out *[]field) {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		idx := append(index[:len(index):len(index)], i)
		if ft, isPtr := embeddedStruct(sf); ft != nil && name == "" {
			if !sf.IsExported() && isPtr {
				continue // cannot be allocated from outside its package
			}
			if !seen[ft] {
				seen[ft] = true
				collectFields(ft, idx, base+sf.Offset, viaPtr || isPtr, seen, out)
				delete(seen, ft)
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		*out = append(*out, field{name: name, index: idx, typ: sf.Type, viaPtr: viaPtr, off: base + sf.Offset,
			optional: viaPtr || sf.Type.Kind() == reflect.Pointer || hasOption(opts, "omitempty") || hasOption(opts, "omitzero")})
	}
}

// embeddedStruct returns the struct type sf embeds, by value or through a
// pointer (isPtr), or nil when sf is not an embedded struct.
func embeddedStruct(sf reflect.StructField) (t reflect.Type, isPtr bool) {
	if !sf.Anonymous {
		return nil, false
	}
	t = sf.Type
	if isPtr = t.Kind() == reflect.Pointer; isPtr {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, false
	}
	return t, isPtr
}

// hasOption reports whether the comma-separated tag options opts hold opt.
func hasOption(opts, opt string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == opt {
			return true
		}
	}
	return false
}

// fieldValue returns the field at index in the struct v, allocating nil
// embedded pointers on the way.
func fieldValue(v reflect.Value, index []int) reflect.Value {
	for k, i := range index {
		if k > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v
}
