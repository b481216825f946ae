package router

import (
	"reflect"
	"strings"
	"sync"

	"github.com/mcpwire/mcpwire/codec"
)

// Member names are matched to struct fields exactly, byte for byte after
// unescaping, as JSON Schema validation matches them: {"MINUEND":10} does
// not fill a field named "minuend". encoding/json (v1) folds case there, and
// a server that validates the params it sees and then decodes them with such
// a decoder can be made to act on members its validation never looked at.
//
// sonic's decoders match exactly when given OptionCaseSensitive, which
// codec.UnmarshalExactString always passes. Where sonic has no decoder of its own (its
// JIT does not cover every platform and Go version) it hands the work to
// encoding/json and the option is lost. foldsCase finds out, once, which
// decoder is in use; when it folds, unfold blanks out, before the decode,
// every member that would reach a field only by folding case, so that the
// result is the one of an exact decoder: such members are unknown members,
// ignored.

// foldsCase reports whether codec.UnmarshalExactString matches member names without regard
// to case despite the option.
var foldsCase = sync.OnceValue(func() bool {
	var v struct {
		A int `json:"a"`
	}
	return codec.UnmarshalExactString(`{"A":1}`, &v) == nil && v.A == 1
})

// unfold returns a copy of params in which every member that a struct field
// of t would take only by folding case is replaced by white space, or nil
// when there is none. With positional true, params is an array whose
// elements go to fields in order.
func unfold(params []byte, t reflect.Type, fields []field, positional bool) []byte {
	u := unfolder{params: params}
	if positional {
		var it codec.Elements
		for it.Reset(params); it.Next() && it.Index() < len(fields); {
			u.walk(it.Value(), it.Offset(), fields[it.Index()].typ)
		}
	} else {
		u.walk(params, 0, t)
	}
	return u.out
}

// unfolder walks params along a Go type and blanks members in out, a copy of
// params made at the first member to blank.
type unfolder struct {
	params, out []byte
}

// walk visits d, the value at params[base:], decoded into t.
func (u *unfolder) walk(d []byte, base int, t reflect.Type) {
	t = deref(t)
	if t == nil || hasCustomDecoder(t) {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		fields := structFields(t)
		var scratch [64]byte
		var it codec.Members
		for it.Reset(d); it.Next(); {
			name := it.Name(scratch[:])
			if f := fieldByName(fields, name); f != nil {
				u.walk(it.Value(), base+it.Offset(), f.typ)
			} else if folds(fields, string(name)) {
				u.blank(base+it.KeyOffset(), base+it.Offset()+len(it.Value()))
			}
		}
	case reflect.Map:
		var it codec.Members
		for it.Reset(d); it.Next(); {
			u.walk(it.Value(), base+it.Offset(), t.Elem())
		}
	case reflect.Slice, reflect.Array:
		var it codec.Elements
		for it.Reset(d); it.Next(); {
			u.walk(it.Value(), base+it.Offset(), t.Elem())
		}
	}
}

// folds reports whether name matches a field only without regard to case.
func folds(fields []field, name string) bool {
	for i := range fields {
		if strings.EqualFold(fields[i].name, name) {
			return true
		}
	}
	return false
}

// blank replaces the member params[k0:v1] (name to end of value) and one
// comma next to it with white space, leaving valid JSON of the same length:
// the comma after it, or, for the last member, the comma before it.
func (u *unfolder) blank(k0, v1 int) {
	if u.out == nil {
		u.out = append([]byte(nil), u.params...)
	}
	out := u.out
	isWS := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	from, to := k0, v1
	j := v1
	for j < len(out) && isWS(out[j]) {
		j++
	}
	if j < len(out) && out[j] == ',' {
		to = j + 1
	} else {
		i := k0 - 1
		for i >= 0 && isWS(out[i]) {
			i--
		}
		if i >= 0 && out[i] == ',' {
			from = i
		}
	}
	for k := from; k < to; k++ {
		out[k] = ' '
	}
}
