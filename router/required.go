package router

import (
	"reflect"
	"strconv"
	"unsafe"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/unsafex"
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
// again only when one of them is zero: a test of a few words per required
// field, at offsets worked out once. When one is zero, missing walks the
// object's members to tell an absent member from a zero one. By position,
// the number of elements tells; nested objects are checked the same way.

// needs is what a struct type requires of the object it is decoded from.
type needs struct {
	fields []need // the fields that are required or hold requirements
	leaves []leaf // the required fields to test for zero, at any depth by value
	nsub   int    // how many fields have a sub
}

// need is one field of a needs.
type need struct {
	f        *field // in structFields of the struct type
	required bool
	sub      *needs // the field is a struct by value that requires members; else nil
	subOrd   int    // the field's position among those with a sub
}

// leaf is a field's place in the struct: its offset and size.
type leaf struct{ off, size uintptr }

// needsOf returns what the struct type t requires, or nil when it requires
// nothing. Structs held by value cannot nest without end, so neither does
// this. Fields promoted from embedded pointers are optional and not looked
// into (they have no fixed offset).
func needsOf(t reflect.Type) *needs {
	if t.Kind() != reflect.Struct || hasCustomDecoder(t) {
		return nil
	}
	var n needs
	fields := structFields(t)
	for i := range fields {
		f := &fields[i]
		if f.viaPtr {
			continue
		}
		nd := need{f: f, required: !f.optional}
		if f.typ.Kind() == reflect.Struct {
			nd.sub = needsOf(f.typ)
		}
		switch {
		case nd.sub != nil:
			for _, l := range nd.sub.leaves {
				n.leaves = append(n.leaves, leaf{f.off + l.off, l.size})
			}
			nd.subOrd = n.nsub
			n.nsub++
		case nd.required:
			n.leaves = append(n.leaves, leaf{f.off, f.typ.Size()})
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

// satisfied reports whether every required field of the struct at p, of the
// type n was made for and freshly decoded, holds something other than its
// zero value: then every required member was present.
func (n *needs) satisfied(p unsafe.Pointer) bool {
	for _, l := range n.leaves {
		// p is the decoded P (or a field of it), alive for the call.
		if unsafex.IsZero(p, l.off, l.size) {
			return false
		}
	}
	return true
}

// missing returns the path ("center.y") of the first required member, in
// declaration order, that the object obj does not hold; "" when it holds
// them all. It does not allocate unless n has more than 64 fields or 4 with
// requirements of their own.
func (n *needs) missing(obj []byte) string {
	var (
		seen    uint64 // bit k: fields[k] is present (k < 64)
		seenAll []bool // the same, with more than 64 fields
		subBuf  [4][]byte
		subs    = subBuf[:] // the last value of each field with a sub, by subOrd
	)
	if len(n.fields) > 64 {
		seenAll = make([]bool, len(n.fields))
	}
	if n.nsub > len(subBuf) {
		subs = make([][]byte, n.nsub)
	}
	var scratch [64]byte
	var it codec.Members
	for it.Reset(obj); it.Next(); {
		k := n.find(it.Name(scratch[:]))
		switch {
		case k < 0:
			continue
		case seenAll != nil:
			seenAll[k] = true
		default:
			seen |= 1 << k
		}
		if nd := &n.fields[k]; nd.sub != nil {
			subs[nd.subOrd] = it.Value() // the last one wins, as in the decoder
		}
	}
	for k := range n.fields {
		nd := &n.fields[k]
		present := seen&(1<<k) != 0 || seenAll != nil && seenAll[k]
		switch {
		case !present:
			if nd.required {
				return nd.f.name
			}
		case nd.sub != nil && codec.KindOf(subs[nd.subOrd]) == codec.ValueObject:
			if p := nd.sub.missing(subs[nd.subOrd]); p != "" {
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

// missingError returns the -32602 error for a required member absent from
// obj, or nil when none is (or obj is not an object). path prefixes the
// member's path and k, when >= 0, is the position of obj in positional
// params.
func (n *needs) missingError(obj []byte, path string, k int) error {
	if codec.KindOf(obj) != codec.ValueObject {
		return nil
	}
	m := n.missing(obj)
	if m == "" {
		return nil
	}
	if path != "" {
		m = path + "." + m
	}
	if k >= 0 {
		return codec.NewError(codec.CodeInvalidParams,
			"invalid params: element "+strconv.Itoa(k)+" ("+strconv.Quote(m)+"): missing required member").
			WithData(map[string]any{"field": m, "index": k})
	}
	return codec.NewError(codec.CodeInvalidParams,
		"invalid params: field "+strconv.Quote(m)+": missing required member").
		WithData(map[string]any{"field": m})
}

// tooFewElements answers positional params with given elements when field k
// (k >= given), f, is required.
func tooFewElements(given, k int, f *field) *codec.Error {
	return codec.NewError(codec.CodeInvalidParams,
		"invalid params: too few elements: "+strconv.Itoa(given)+" given, element "+strconv.Itoa(k)+
			" ("+strconv.Quote(f.name)+") is required").
		WithData(map[string]any{"field": f.name, "index": k})
}
