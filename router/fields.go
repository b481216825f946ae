package router

import (
	"reflect"
	"strings"
	"sync"
)

// field is one member of a struct as encoding/json (and sonic) see it.
type field struct {
	name   string       // JSON name: the tag's name, else the Go name
	index  []int        // path through embedded structs
	typ    reflect.Type // the field's type
	tagged bool         // the name came from a json tag
	// optional: the member may be absent (required.go): the field is a
	// pointer, is tagged omitempty or omitzero, or is promoted from an
	// embedded pointer.
	optional bool
	// viaPtr: promoted from an embedded pointer; else off is the field's
	// offset in the struct.
	viaPtr bool
	off    uintptr
}

// fieldCache maps a struct type to its []field. Filled on first use (when a
// typed handler is built, and on the error path for nested structs).
var fieldCache sync.Map

// structFields returns the JSON-visible fields of struct type t in
// declaration order, embedded structs flattened in place, with the same
// visibility and conflict rules as encoding/json: exported fields only
// (and exported fields promoted from embedded structs), `json:"-"` skipped,
// and of several fields with one name the shallowest wins, a tagged one
// breaking a tie; an unresolved tie hides the name.
func structFields(t reflect.Type) []field {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]field)
	}
	var all []field
	collectFields(t, nil, 0, false, map[reflect.Type]bool{t: true}, &all)

	// Resolve name conflicts, keeping declaration order.
	byName := make(map[string][]int, len(all)) // name → positions in all
	for i, f := range all {
		byName[f.name] = append(byName[f.name], i)
	}
	keep := make([]bool, len(all))
	for _, pos := range byName {
		if w, ok := dominant(all, pos); ok {
			keep[w] = true
		}
	}
	fields := make([]field, 0, len(all))
	for i, f := range all {
		if keep[i] {
			fields = append(fields, f)
		}
	}
	v, _ := fieldCache.LoadOrStore(t, fields)
	return v.([]field)
}

// collectFields appends the fields of t, reached through index at offset
// base (or through an embedded pointer when viaPtr), to out.
func collectFields(t reflect.Type, index []int, base uintptr, viaPtr bool, seen map[reflect.Type]bool, out *[]field) {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		idx := append(index[:len(index):len(index)], i)
		if sf.Anonymous {
			ft := sf.Type
			isPtr := ft.Kind() == reflect.Pointer
			if isPtr {
				ft = ft.Elem()
			}
			if !sf.IsExported() && (isPtr || ft.Kind() != reflect.Struct) {
				continue // encoding/json cannot set through these
			}
			if name == "" && ft.Kind() == reflect.Struct {
				if !seen[ft] {
					seen[ft] = true
					collectFields(ft, idx, base+sf.Offset, viaPtr || isPtr, seen, out)
					delete(seen, ft)
				}
				continue
			}
		} else if !sf.IsExported() {
			continue
		}
		f := field{name: name, index: idx, typ: sf.Type, tagged: name != "", viaPtr: viaPtr, off: base + sf.Offset}
		f.optional = viaPtr || sf.Type.Kind() == reflect.Pointer ||
			hasOption(opts, "omitempty") || hasOption(opts, "omitzero")
		if name == "" {
			f.name = sf.Name
		}
		*out = append(*out, f)
	}
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

// dominant picks the field that owns a name among the candidates at pos.
func dominant(all []field, pos []int) (int, bool) {
	if len(pos) == 1 {
		return pos[0], true
	}
	depth := len(all[pos[0]].index)
	for _, p := range pos[1:] {
		depth = min(depth, len(all[p].index))
	}
	win, n, tagged := -1, 0, 0
	for _, p := range pos {
		if len(all[p].index) != depth {
			continue
		}
		n++
		if all[p].tagged {
			tagged++
			win = p
		} else if win < 0 {
			win = p
		}
	}
	if n == 1 || tagged == 1 {
		return win, true
	}
	return 0, false
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
