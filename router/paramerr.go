package router

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/bytedance/sonic/decoder"

	"github.com/mcpwire/mcpwire/codec"
)

// The slow path of typed handlers: a decode failed, and the answer must name
// the member at fault.
//
// sonic's *MismatchTypeError gives the byte position of the value that did not
// fit; locate walks the params from the root down to that position (each byte
// scanned at most once) and follows P's type alongside, to name struct fields
// as declared and to describe the Go type that was wanted. Errors without a
// position (a number out of range, a custom UnmarshalJSON failing) are found
// by decoding members one at a time, descending into the one that fails, at
// most maxProbeDepth levels deep, so that a hostile request cannot make this
// path cost more than a few decodes of its params.

const maxProbeDepth = 8

// errMalformed answers params that are not valid JSON. The connection never
// passes such params; a direct caller might.
var errMalformed = codec.NewError(codec.CodeInvalidParams, "invalid params: malformed JSON")

// seg is one step of a path: a member name, or an element index (index >= 0).
type seg struct {
	name  string
	index int
}

func pathString(segs []seg) string {
	var b strings.Builder
	for _, sg := range segs {
		if sg.index >= 0 {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(sg.index))
			b.WriteByte(']')
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(sg.name)
	}
	return b.String()
}

// explain builds the -32602 error for a failure to decode the whole params s
// into t.
func explain(s string, t reflect.Type, err error) *codec.Error {
	segs, leaf := locate([]byte(s), s, t, err, 0)
	switch {
	case leaf == "":
		return errMalformed
	case len(segs) == 0:
		return codec.NewError(codec.CodeInvalidParams, "invalid params: "+leaf)
	case segs[0].index >= 0: // params is an array decoded into a slice or array
		msg := "invalid params: element " + strconv.Itoa(segs[0].index)
		if len(segs) > 1 {
			msg += ": field " + strconv.Quote(pathString(segs[1:]))
		}
		return codec.NewError(codec.CodeInvalidParams, msg+": "+leaf).
			WithData(map[string]any{"field": pathString(segs), "index": segs[0].index})
	default:
		path := pathString(segs)
		return codec.NewError(codec.CodeInvalidParams, "invalid params: field "+strconv.Quote(path)+": "+leaf).
			WithData(map[string]any{"field": path})
	}
}

// elementError builds the -32602 error for a failure to decode element k, the
// JSON value s, into the struct field f.
func elementError(k int, f *field, s string, err error) *codec.Error {
	segs, leaf := locate([]byte(s), s, f.typ, err, 0)
	if leaf == "" {
		return errMalformed
	}
	path := pathString(append([]seg{{name: f.name, index: -1}}, segs...))
	return codec.NewError(codec.CodeInvalidParams,
		"invalid params: element "+strconv.Itoa(k)+" ("+strconv.Quote(path)+"): "+leaf).
		WithData(map[string]any{"field": path, "index": k})
}

func tooManyElements(given, accepted int) *codec.Error {
	return codec.NewError(codec.CodeInvalidParams,
		"invalid params: too many elements: "+strconv.Itoa(given)+" given, at most "+strconv.Itoa(accepted)+" accepted").
		WithData(map[string]any{"index": accepted})
}

// locate finds where in s (a value decoded into t; d holds the same bytes)
// err arose. It returns the path from s to the value at fault and a
// description of the fault; an empty description means s is not valid JSON.
func locate(d []byte, s string, t reflect.Type, err error, depth int) ([]seg, string) {
	var se decoder.SyntaxError
	if errors.As(err, &se) {
		return nil, ""
	}
	var me *decoder.MismatchTypeError
	if errors.As(err, &me) && me.Src == s && me.Pos >= 0 && me.Pos < len(s) {
		return descend(d, t, me.Pos, me.Type)
	}
	return probe(d, s, t, err, depth)
}

// entry is one member (name set) or element (name nil) of a container.
type entry struct {
	name  []byte // unescaped
	index int
	off   int    // of the value in the container
	value []byte // raw
}

// entries calls f for each member or element of the container d, in order,
// until f returns false. It reports whether d is an object or an array.
func entries(d []byte, f func(e *entry) bool) bool {
	var e entry
	switch codec.KindOf(d) {
	case codec.ValueObject:
		var it codec.Members
		for it.Reset(d); it.Next(); {
			e = entry{name: it.Name(nil), index: it.Index(), off: it.Offset(), value: it.Value()}
			if !f(&e) {
				break
			}
		}
	case codec.ValueArray:
		var it codec.Elements
		for it.Reset(d); it.Next(); {
			e = entry{index: it.Index(), off: it.Offset(), value: it.Value()}
			if !f(&e) {
				break
			}
		}
	default:
		return false
	}
	return true
}

// descend walks from the root of d to the value starting at pos.
func descend(d []byte, t reflect.Type, pos int, fallback reflect.Type) ([]seg, string) {
	var segs []seg
	cur, base := bytesTrimLeft(d), len(d)-len(bytesTrimLeft(d)) // the value searched, at d[base:]
	for base != pos {
		var found *entry
		entries(cur, func(e *entry) bool {
			if base+e.off <= pos && pos < base+e.off+len(e.value) {
				found = e
				return false
			}
			return true
		})
		if found == nil {
			break
		}
		t = deref(t)
		var next reflect.Type
		if found.name != nil {
			name := string(found.name)
			if t != nil {
				switch t.Kind() {
				case reflect.Struct:
					if f := fieldByName(structFields(t), found.name); f != nil {
						name, next = f.name, f.typ
					}
				case reflect.Map:
					next = t.Elem()
				}
			}
			segs = append(segs, seg{name: name, index: -1})
		} else {
			if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
				next = t.Elem()
			}
			segs = append(segs, seg{index: found.index})
		}
		t, cur, base = next, found.value, base+found.off
	}
	if t == nil {
		t = fallback
	}
	return segs, mismatch(cur, t)
}

// probe finds the failing member of s by decoding members one at a time.
func probe(d []byte, s string, t reflect.Type, err error, depth int) ([]seg, string) {
	t = deref(t)
	if t == nil || depth >= maxProbeDepth || hasCustomDecoder(t) {
		return nil, leafText(d, t, err)
	}
	var (
		segs  []seg
		leaf  string
		stop  bool // the decoder would not have gone on: describe the whole
		found bool
	)
	isContainer := entries(d, func(e *entry) bool {
		var sg seg
		var next reflect.Type
		switch k := t.Kind(); {
		case e.name != nil && k == reflect.Struct:
			f := fieldByName(structFields(t), e.name)
			if f == nil {
				return true // ignored by the decoder
			}
			sg, next = seg{name: f.name, index: -1}, f.typ
		case e.name != nil && k == reflect.Map:
			sg, next = seg{name: string(e.name), index: -1}, t.Elem()
		case e.name == nil && (k == reflect.Slice || k == reflect.Array):
			if k == reflect.Array && e.index >= t.Len() {
				stop = true // extra elements are dropped
				return false
			}
			sg, next = seg{index: e.index}, t.Elem()
		default:
			stop = true
			return false
		}
		vs := s[e.off : e.off+len(e.value)]
		if de := codec.UnmarshalExactString(vs, reflect.New(next).Interface()); de != nil {
			sub, l := locate(e.value, vs, next, de, depth+1)
			segs, leaf, found = append([]seg{sg}, sub...), l, true
			return false
		}
		return true
	})
	if !isContainer || stop || !found {
		return nil, leafText(d, t, err)
	}
	return segs, leaf
}

// leafText describes err, which arose decoding d into t.
func leafText(d []byte, t reflect.Type, err error) string {
	var ute *json.UnmarshalTypeError
	var me *decoder.MismatchTypeError
	switch {
	case errors.As(err, &ute):
		if t == nil {
			t = ute.Type
		}
		return mismatch(d, t)
	case errors.As(err, &me):
		if t == nil {
			t = me.Type
		}
		return mismatch(d, t)
	}
	return err.Error()
}

// mismatch says that the JSON value at the start of d cannot go into t:
// "cannot use string as int", "cannot use number 300 as int8".
func mismatch(d []byte, t reflect.Type) string {
	return "cannot use " + jsonKind(d) + " as " + typeName(t)
}

func jsonKind(d []byte) string {
	switch k := codec.KindOf(d); k {
	case codec.ValueInvalid:
		return "nothing"
	case codec.ValueTrue, codec.ValueFalse:
		return "boolean"
	case codec.ValueNumber:
		d = bytesTrimLeft(d)
		if end, err := codec.SkipValue(d, 0); err == nil && end <= 32 {
			return "number " + string(d[:end])
		}
		return "number"
	default:
		return k.String()
	}
}

// typeName names t for a client: Go's scalar kinds (int, uint8, float64,
// string, bool), and JSON's words for containers, so that no Go package path
// leaks into an answer. Types with their own decoding keep their Go name.
func typeName(t reflect.Type) string {
	t = deref(t)
	if t == nil {
		return "value"
	}
	if hasCustomDecoder(t) {
		return t.String()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "base64 string"
		}
		return "array"
	case reflect.Array:
		return "array"
	case reflect.Interface:
		return "any"
	}
	return t.Kind().String()
}

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// hasCustomDecoder reports whether t (through a pointer) decodes itself.
func hasCustomDecoder(t reflect.Type) bool {
	if t.Kind() != reflect.Pointer {
		t = reflect.PointerTo(t)
	}
	return t.Implements(jsonUnmarshaler) || t.Implements(textUnmarshaler)
}

// bytesTrimLeft drops the JSON white space at the start of d.
func bytesTrimLeft(d []byte) []byte {
	return bytes.TrimLeft(d, " \t\n\r")
}
