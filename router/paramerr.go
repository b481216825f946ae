package router

import (
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
	segs, leaf := locate(s, t, err, 0)
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
	segs, leaf := locate(s, f.typ, err, 0)
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

// locate finds where in s (a value decoded into t) err arose. It returns the
// path from s to the value at fault and a description of the fault; an empty
// description means s is not valid JSON.
func locate(s string, t reflect.Type, err error, depth int) ([]seg, string) {
	var se decoder.SyntaxError
	if errors.As(err, &se) {
		return nil, ""
	}
	var me *decoder.MismatchTypeError
	if errors.As(err, &me) && me.Src == s && me.Pos >= 0 && me.Pos < len(s) {
		return descend(s, t, me.Pos, me.Type)
	}
	return probe(s, t, err, depth)
}

// descend walks from the root of s to the value starting at pos.
func descend(s string, t reflect.Type, pos int, fallback reflect.Type) ([]seg, string) {
	var segs []seg
	i := skipSpace(s, 0)
	for i != pos {
		var it iter
		if !it.begin(s, i) {
			break
		}
		found := false
		for it.next() {
			if it.v0 <= pos && pos < it.v1 {
				found = true
				break
			}
		}
		if !found {
			break
		}
		t = deref(t)
		var next reflect.Type
		if it.object {
			name := unquote(it.key)
			if t != nil {
				switch t.Kind() {
				case reflect.Struct:
					if f := fieldByName(structFields(t), name); f != nil {
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
			segs = append(segs, seg{index: it.n - 1})
		}
		t, i = next, it.v0
	}
	if t == nil {
		t = fallback
	}
	return segs, mismatch(s[i:], t)
}

// probe finds the failing member of s by decoding members one at a time.
func probe(s string, t reflect.Type, err error, depth int) ([]seg, string) {
	t = deref(t)
	var it iter
	if t == nil || depth >= maxProbeDepth || hasCustomDecoder(t) || !it.begin(s, 0) {
		return nil, leafText(s, t, err)
	}
	for it.next() {
		var sg seg
		var next reflect.Type
		switch k := t.Kind(); {
		case it.object && k == reflect.Struct:
			f := fieldByName(structFields(t), unquote(it.key))
			if f == nil {
				continue // ignored by the decoder
			}
			sg, next = seg{name: f.name, index: -1}, f.typ
		case it.object && k == reflect.Map:
			sg, next = seg{name: unquote(it.key), index: -1}, t.Elem()
		case !it.object && (k == reflect.Slice || k == reflect.Array):
			if k == reflect.Array && it.n > t.Len() {
				return nil, leafText(s, t, err) // extra elements are dropped
			}
			sg, next = seg{index: it.n - 1}, t.Elem()
		default:
			return nil, leafText(s, t, err)
		}
		v := it.value()
		if e := sonicDecode(v, reflect.New(next).Interface()); e != nil {
			sub, leaf := locate(v, next, e, depth+1)
			return append([]seg{sg}, sub...), leaf
		}
	}
	return nil, leafText(s, t, err)
}

// leafText describes err, which arose decoding s into t.
func leafText(s string, t reflect.Type, err error) string {
	var ute *json.UnmarshalTypeError
	var me *decoder.MismatchTypeError
	switch {
	case errors.As(err, &ute):
		if t == nil {
			t = ute.Type
		}
		return mismatch(s, t)
	case errors.As(err, &me):
		if t == nil {
			t = me.Type
		}
		return mismatch(s, t)
	}
	return err.Error()
}

// mismatch says that the JSON value at the start of s cannot go into t:
// "cannot use string as int", "cannot use number 300 as int8".
func mismatch(s string, t reflect.Type) string {
	return "cannot use " + jsonKind(s) + " as " + typeName(t)
}

func jsonKind(s string) string {
	s = s[skipSpace(s, 0):]
	if s == "" {
		return "nothing"
	}
	switch s[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	if end := skipValue(s, 0); end > 0 && end <= 32 {
		return "number " + s[:end]
	}
	return "number"
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

// unquote returns the JSON string body k (between its quotes) unescaped.
func unquote(k string) string {
	if !strings.ContainsRune(k, '\\') {
		return k
	}
	var out string
	if sonicDecode(`"`+k+`"`, &out) != nil {
		return k
	}
	return out
}
