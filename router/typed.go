package router

import (
	"bytes"
	"context"
	"reflect"
	"sync"
	"unsafe"

	"github.com/bytedance/sonic/decoder"

	"github.com/mcpwire/mcpwire/codec"
)

// Typed handlers.
//
// Fast path (per call): one string copy of the params, one pooled P, one
// decode with a pooled codec.ExactDecoder (sonic where it has a decoder of
// its own) by name or into a slice, or one decode per element into the
// fields of P (by position); then a test for zero of each required field
// (required.go), which walks the params' names only when one is zero.
// Everything that depends only on P — whether it takes positional params,
// its fields in order, which are required — is computed once, in Func. The
// slow path (paramerr.go) runs only when decoding fails, to name the
// offending field.

// Func adapts f to a Handler that decodes the request's params into a P and
// returns f's result. See the package documentation for how params are
// decoded and how mismatches are reported (-32602, naming the field).
//
// A nil params gives f the zero P. The result R becomes the response's
// result: a codec.Raw is written verbatim, anything else is encoded with
// sonic. An error from f is returned as is (a *codec.Error is sent as is,
// any other becomes -32603). Func panics if f is nil.
func Func[P, R any](f func(ctx context.Context, p P) (R, error)) Handler {
	if f == nil {
		panic("router: Func with a nil function")
	}
	h := &funcHandler[P, R]{f: f}
	h.pl.init(reflect.TypeFor[P]())
	return h
}

type funcHandler[P, R any] struct {
	f     func(context.Context, P) (R, error)
	pl    plan
	boxes sync.Pool // of *box[P], P zeroed
}

// box is what a call's params are decoded into, and with: one pool round
// trip for both.
type box[P any] struct {
	p   P
	dec codec.ExactDecoder
}

func (h *funcHandler[P, R]) Handle(ctx context.Context, req *Request) (any, error) {
	r, err := h.serve(ctx, req)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// HandleAppend is Handle with the result encoded after dst, where a
// string result is quoted without being put in an interface.
func (h *funcHandler[P, R]) HandleAppend(ctx context.Context, req *Request, dst []byte) ([]byte, error) {
	r, err := h.serve(ctx, req)
	if err != nil {
		return dst, err
	}
	if s, ok := any(r).(string); ok {
		return codec.AppendString(dst, s), nil
	}
	out, err := codec.AppendValue(dst, r)
	if err != nil {
		return dst, &ResultError{err}
	}
	return out, nil
}

// serve decodes the request's params into a P and calls f.
func (h *funcHandler[P, R]) serve(ctx context.Context, req *Request) (R, error) {
	if req.Params == nil {
		var zero P
		return h.f(ctx, zero)
	}
	// The decoder needs P behind an interface, so P is decoded into a
	// pooled box and copied out: the box, zeroed again, keeps nothing.
	b, _ := h.boxes.Get().(*box[P])
	if b == nil {
		b = new(box[P])
	}
	var err error
	if h.pl.raw {
		*any(&b.p).(*codec.Raw) = bytes.Clone(req.Params)
	} else {
		err = h.pl.decode(&b.dec, req.Params, &b.p)
	}
	v := b.p
	b.p = *new(P)
	h.boxes.Put(b)
	if err != nil {
		var zero R
		return zero, err
	}
	return h.f(ctx, v)
}

// plan is what Func works out about P, once.
type plan struct {
	typ    reflect.Type // P
	raw    bool         // P is codec.Raw: params verbatim
	st     reflect.Type // P, or what P points to, when that is a struct decoded by position from an array; else nil
	fields []field      // st's fields in declaration order

	// What st requires (required.go): by name, need (nil: nothing); by
	// position, at least minElems elements and, for element k, what
	// fields[k] requires in turn (elemNeeds[k], nil: nothing).
	need      *needs
	minElems  int
	elemNeeds []*needs
	direct    bool // P is st, not a pointer to it
}

var rawType = reflect.TypeFor[codec.Raw]()

func (pl *plan) init(t reflect.Type) {
	pl.typ = t
	if t == rawType {
		pl.raw = true
		return
	}
	st := deref(t)
	if st.Kind() == reflect.Struct && !hasCustomDecoder(st) {
		pl.st, pl.direct = st, st == t
		pl.fields = structFields(st)
		pl.need = needsOf(st)
		pl.elemNeeds = make([]*needs, len(pl.fields))
		for k := range pl.fields {
			f := &pl.fields[k]
			if !f.optional {
				pl.minElems = k + 1
			}
			pl.elemNeeds[k] = needsOf(f.typ)
		}
	}
	// Compile sonic's decoder for P now rather than on the first call.
	// An error here (a type sonic cannot compile) shows up again, and is
	// reported, when decoding.
	_ = decoder.Pretouch(t)
}

// decode decodes params into ptr, a *P, with dec. Params with a member
// name given twice in one object are refused first: sonic would keep the
// last value, silently.
func (pl *plan) decode(dec *codec.ExactDecoder, params []byte, ptr any) error {
	if at := codec.DuplicateName(params); at >= 0 {
		return codec.DuplicateNameError(params, at)
	}
	positional := pl.st != nil && codec.KindOf(params) == codec.ValueArray
	// One copy per call: decoded strings point into it, so P stays valid
	// after the connection reuses its buffers.
	s := string(params)
	if positional {
		return pl.decodePositional(dec, params, s, reflect.ValueOf(ptr).Elem())
	}
	if err := dec.UnmarshalString(s, ptr); err != nil {
		return explain(params, pl.typ)
	}
	if pl.need != nil {
		var at unsafe.Pointer // the decoded struct
		if pl.direct {
			at = reflect.ValueOf(ptr).UnsafePointer()
		} else {
			at = structAt(ptr)
		}
		if !pl.need.satisfied(at) {
			return pl.need.missingError(params, "", -1)
		}
	}
	return nil
}

// structAt returns the address of the struct that ptr, a pointer to
// pointers, leads to (a zero one when a pointer on the way is nil).
func structAt(ptr any) unsafe.Pointer {
	v := reflect.ValueOf(ptr).Elem()
	for ; v.Kind() == reflect.Pointer; v = v.Elem() {
		if v.IsNil() {
			return reflect.New(v.Type().Elem()).UnsafePointer()
		}
	}
	return v.Addr().UnsafePointer()
}

// decodePositional decodes the array params (s is its copy) into the struct
// v (or what v points to), element i into field i, with dec.
//
// A field's `json:",string"` option is not applied to positional params.
func (pl *plan) decodePositional(dec *codec.ExactDecoder, params []byte, s string, v reflect.Value) error {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	var it codec.Elements
	for it.Reset(params); it.Next(); {
		k := it.Index()
		if k >= len(pl.fields) {
			for it.Next() {
			}
			return tooManyElements(it.Index()+1, len(pl.fields))
		}
		f := &pl.fields[k]
		fv := fieldValue(v, f.index)
		es := s[it.Offset() : it.Offset()+len(it.Value())] // the element, in the copy
		if err := dec.UnmarshalString(es, fv.Addr().Interface()); err != nil {
			return elementError(k, f, it.Value())
		}
		if nd := pl.elemNeeds[k]; nd != nil && !nd.satisfied(fv.Addr().UnsafePointer()) {
			if e := nd.missingError(it.Value(), f.name, k); e != nil {
				return e
			}
		}
	}
	if it.Err() != nil {
		return errMalformed
	}
	if n := it.Index() + 1; n < pl.minElems {
		k := n
		for pl.fields[k].optional {
			k++
		}
		return tooFewElements(n, k, &pl.fields[k])
	}
	return nil
}
