package router

import (
	"reflect"
	"strconv"

	"github.com/mcpwire/mcpwire/codec"
)

// Required members: a typed handler never sees a zero value standing in for
// a member the caller left out.
//
// Rule (the one JSON Schema generation follows): a struct member is
// required unless its field is a pointer, is tagged omitempty or omitzero,
// or is promoted from an embedded pointer; fields tagged `json:"-"` are not
// members. The rule applies to P's fields and, in turn, to the fields of a
// member that is itself a struct held by value (not through a pointer, a
// slice or a map) when that member is given as an object. A member given as
// null is present.
//
// Fast path: after a successful decode, every required field (at any depth
// by value) that holds something other than its zero value was present,
// since only the decoder wrote to the fresh P. So the params are looked at
// again only when one of them is zero: then missing walks the object's
// members to tell an absent member from a zero one. By position, the
// number of elements tells; nested objects are checked the same way.

// needs is what a struct type requires of the object it is decoded from.
type needs struct {
	fields []need  // the fields that are required or hold requirements
	leaves [][]int // index paths of the required fields to test for zero
}

// need is one field of a needs.
type need struct {
	f        *field // in structFields of the struct type
	required bool
	sub      *needs // the field is a struct by value that requires members; else nil
}

// needsOf returns what the struct type t requires, or nil when it requires
// nothing. Structs held by value cannot nest without end, so neither does
// this.
func needsOf(t reflect.Type) *needs {
	if t.Kind() != reflect.Struct || hasCustomDecoder(t) {
		return nil
	}
	var n needs
	fields := structFields(t)
	for i := range fields {
		f := &fields[i]
		nd := need{f: f, required: !f.optional}
		if f.typ.Kind() == reflect.Struct {
			nd.sub = needsOf(f.typ)
		}
		switch {
		case nd.sub != nil:
			for _, l := range nd.sub.leaves {
				n.leaves = append(n.leaves, append(f.index[:len(f.index):len(f.index)], l...))
			}
		case nd.required:
			n.leaves = append(n.leaves, f.index)
		default:
			continue
		}
		n.fields = append(n.fields, nd)
	}
	if len(n.fields) == 0 {
		return nil
	}
	return &n
}

// satisfied reports whether every required field of v, a struct of the
// type n was made for, holds a value other than zero: then every required
// member was present.
func (n *needs) satisfied(v reflect.Value) bool {
	for _, l := range n.leaves {
		// A field promoted from a nil embedded pointer is an error here:
		// unsatisfied, and missing decides.
		if f, err := v.FieldByIndexErr(l); err != nil || f.IsZero() {
			return false
		}
	}
	return true
}

// missing returns the path ("center.y") of the first required member, in
// declaration order, that the object obj does not hold; "" when it holds
// them all.
func (n *needs) missing(obj []byte) string {
	var buf [16][]byte
	last := buf[:]
	if len(n.fields) > len(buf) {
		last = make([][]byte, len(n.fields))
	}
	var scratch [64]byte
	var it codec.Members
	for it.Reset(obj); it.Next(); {
		if k := n.find(it.Name(scratch[:])); k >= 0 {
			last[k] = it.Value() // the last one wins, as in the decoder
		}
	}
	for k := range n.fields {
		nd := &n.fields[k]
		switch v := last[k]; {
		case v == nil:
			if nd.required {
				return nd.f.name
			}
		case nd.sub != nil && codec.KindOf(v) == codec.ValueObject:
			if p := nd.sub.missing(v); p != "" {
				return nd.f.name + "." + p
			}
		}
	}
	return ""
}

// find returns the position in n.fields of the field named name, or -1.
func (n *needs) find(name []byte) int {
	for k := range n.fields {
		if n.fields[k].f.name == string(name) {
			return k
		}
	}
	return -1
}

// check returns the -32602 error for a required member absent from obj,
// decoded into v; nil when none is. path prefixes the member's path and k,
// when >= 0, is the position of obj in positional params.
func (n *needs) check(v reflect.Value, obj []byte, path string, k int) *codec.Error {
	if n.satisfied(v) || codec.KindOf(obj) != codec.ValueObject {
		return nil
	}
	p := n.missing(obj)
	if p == "" {
		return nil
	}
	if path != "" {
		p = path + "." + p
	}
	if k >= 0 {
		return codec.NewError(codec.CodeInvalidParams,
			"invalid params: element "+strconv.Itoa(k)+" ("+strconv.Quote(p)+"): missing required member").
			WithData(map[string]any{"field": p, "index": k})
	}
	return codec.NewError(codec.CodeInvalidParams,
		"invalid params: field "+strconv.Quote(p)+": missing required member").
		WithData(map[string]any{"field": p})
}

// tooFewElements answers positional params with given elements when field k
// (k >= given), f, is required.
func tooFewElements(given, k int, f *field) *codec.Error {
	return codec.NewError(codec.CodeInvalidParams,
		"invalid params: too few elements: "+strconv.Itoa(given)+" given, element "+strconv.Itoa(k)+
			" ("+strconv.Quote(f.name)+") is required").
		WithData(map[string]any{"field": f.name, "index": k})
}
