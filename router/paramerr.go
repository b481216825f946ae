package router

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpwire/mcpwire/codec"
)

// The slow path of typed handlers: a decode failed, and the answer must name
// the member at fault.
//
// The params are decoded again, by codec.ExplainExact (go-json-experiment/
// json under the same rules as the fast path), which stops at the first
// value that does not fit and reports its JSON Pointer, its byte offset and
// the Go type it did not fit. The pointer becomes the "field" path (walking
// the params to tell members from elements), the value and the type the
// message. One decode of the params, whatever they hold.

// errMalformed answers params that are not valid JSON. The connection never
// passes such params; a direct caller might.
var errMalformed = codec.NewError(codec.CodeInvalidParams, "invalid params: malformed JSON")

// errRefused answers params that the fast path refused and the slow path
// accepts: the two decoders disagree (a test checks they do not), and the
// culprit cannot be named.
var errRefused = codec.NewError(codec.CodeInvalidParams, "invalid params")

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

// explain builds the -32602 error for params that failed to decode into t.
func explain(params []byte, t reflect.Type) *codec.Error {
	segs, leaf, bad := locate(params, t)
	switch {
	case bad != nil:
		return bad
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

// elementError builds the -32602 error for element k of positional params,
// the JSON value d, that failed to decode into the struct field f.
func elementError(k int, f *field, d []byte) *codec.Error {
	segs, leaf, bad := locate(d, f.typ)
	if bad != nil {
		return bad
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

// locate finds the first value of d, decoded into t, that does not fit. It
// returns the path from d to that value and a description of the fault, or
// the whole answer when the value cannot be named.
func locate(d []byte, t reflect.Type) ([]seg, string, *codec.Error) {
	err := codec.ExplainExact(d, reflect.New(t).Interface())
	var se *jsonv2.SemanticError
	switch {
	case err == nil:
		return nil, "", errRefused
	case !errors.As(err, &se):
		return nil, "", errMalformed // a *jsontext.SyntacticError
	}
	segs := pointerSegs(d, se.JSONPointer)
	typ := se.GoType
	if typ == nil {
		typ = t
	}
	if se.Err != nil && hasCustomDecoder(typ) {
		// The type's own UnmarshalJSON (or UnmarshalText) said no.
		return segs, se.Err.Error(), nil
	}
	var v []byte // the value at fault
	if off := se.ByteOffset; off >= 0 && off < int64(len(d)) {
		v = d[off:]
	}
	return segs, mismatch(v, typ), nil
}

// pointerSegs turns p, a JSON Pointer into d, into a path: a token is a
// member name where the value it steps into is an object, an index where
// it is an array.
func pointerSegs(d []byte, p jsontext.Pointer) []seg {
	var segs []seg
	var scratch [64]byte
	for tok := range p.Tokens() {
		var next []byte
		switch codec.KindOf(d) {
		case codec.ValueObject:
			segs = append(segs, seg{name: tok, index: -1})
			var it codec.Members
			for it.Reset(d); it.Next(); {
				if string(it.Name(scratch[:])) == tok {
					next = it.Value() // the only one: duplicates were refused
					break
				}
			}
		case codec.ValueArray:
			k, err := strconv.Atoi(tok)
			if err != nil {
				return segs
			}
			segs = append(segs, seg{index: k})
			var it codec.Elements
			for it.Reset(d); it.Next(); {
				if it.Index() == k {
					next = it.Value()
					break
				}
			}
		}
		if next == nil {
			return segs
		}
		d = next
	}
	return segs
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
