package codec

import (
	"encoding/json"
	"strconv"
	"sync"

	"github.com/bytedance/sonic/encoder"
	"github.com/valyala/bytebufferpool"
)

// The encoder appends JSON-RPC envelopes to a caller's buffer (usually a
// pooled Buffer). The envelope is written by hand: fixed member names, the
// id echoed byte for byte, codes with strconv.AppendInt, strings through
// appendString (encode_string.go). Go values go through sonic, encoding
// straight into the spare capacity of dst.
//
// sonic options (encOpts), chosen to give what encoding/json gives, minus
// its costly extras. As in sonic.ConfigStd: ValidateString (invalid UTF-8
// in Go strings comes out as \ufffd, so the output is always valid UTF-8)
// and CompactMarshaler (the output of a json.Marshaler, Raw included, is
// validated and compacted, so it never brings a raw newline into a
// newline-framed stream). Unlike ConfigStd: HTML characters are not escaped
// (valid JSON either way) and map keys are not sorted (SortMapKeys costs a
// lot; JSON objects are unordered). Nil slices and maps encode as null, NaN
// and ±Inf are errors, []byte is base64, as in encoding/json.
const encOpts = encoder.ValidateString | encoder.CompactMarshaler

// Buffer is a pooled output buffer. Get it from a BufferPool, append to B,
// and Put it back when written.
type Buffer = bytebufferpool.ByteBuffer

// BufferPool hands out output buffers; it calibrates its buffer size to the
// traffic it sees. The zero value is ready; safe for concurrent use. Each
// server or connection owns one (no global pool).
type BufferPool struct{ p bytebufferpool.Pool }

// Get returns an empty buffer.
func (p *BufferPool) Get() *Buffer { return p.p.Get() }

// Put returns b to the pool; b must not be used afterwards.
func (p *BufferPool) Put(b *Buffer) { p.p.Put(b) }

// appendHead appends `{"jsonrpc":"2.0","id":<id>`.
func appendHead(dst, id []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	return appendRaw(dst, id)
}

// appendRaw appends a raw JSON value verbatim; nil or empty is null.
func appendRaw(dst, v []byte) []byte {
	if len(v) == 0 {
		return append(dst, "null"...)
	}
	return append(dst, v...)
}

// AppendResult appends a success response. id is the raw id (nil: null);
// result is raw JSON, copied verbatim (nil: null). Both are trusted to be
// valid JSON: the scanner produced the id, the handler the result.
func AppendResult(dst, id, result []byte) []byte {
	return append(appendRaw(AppendResultHead(dst, id), result), '}')
}

// AppendResultHead appends a success response up to its result:
// `{"jsonrpc":"2.0","id":<id>,"result":`. What follows is the result's
// JSON and a closing '}': AppendResult in two steps, for a result encoded
// in place.
func AppendResultHead(dst, id []byte) []byte {
	return append(appendHead(dst, id), `,"result":`...)
}

// AppendResultValue appends a success response whose result is v: a Raw or
// json.RawMessage is copied verbatim (empty: null), nil is null, anything
// else is encoded with sonic (so a plain []byte becomes a base64 string, as
// with encoding/json). On an encoding error dst is returned unchanged with
// the error.
func AppendResultValue(dst, id []byte, v any) ([]byte, error) {
	n := len(dst)
	dst, err := AppendValue(AppendResultHead(dst, id), v)
	if err != nil {
		return dst[:n], err
	}
	return append(dst, '}'), nil
}

// AppendError appends an error response. id is the raw id (nil: null); a
// nil e is sent as an internal error. A Data that cannot be encoded is
// dropped (the error still goes out).
func AppendError(dst, id []byte, e *Error) []byte {
	if e == nil {
		e = ErrInternal
	}
	dst = appendHead(dst, id)
	dst = append(dst, `,"error":{"code":`...)
	dst = strconv.AppendInt(dst, int64(e.Code), 10)
	dst = append(dst, `,"message":`...)
	dst = appendString(dst, e.Message)
	if e.Data != nil {
		n := len(dst)
		dst = append(dst, `,"data":`...)
		var err error
		if dst, err = AppendValue(dst, e.Data); err != nil {
			dst = dst[:n]
		}
	}
	return append(dst, "}}"...)
}

// AppendRequest appends a request (id not nil) or a notification (id nil).
// method is plain text (it is escaped as needed); params is raw JSON (nil or
// empty: omitted).
func AppendRequest(dst, id []byte, method string, params []byte) []byte {
	if id != nil {
		dst = appendHead(dst, id)
	} else {
		dst = append(dst, `{"jsonrpc":"2.0"`...)
	}
	dst = append(dst, `,"method":`...)
	dst = appendString(dst, method)
	if len(params) > 0 {
		dst = append(dst, `,"params":`...)
		dst = append(dst, params...)
	}
	return append(dst, '}')
}

// An Appender appends its own JSON encoding to dst, in place of sonic's:
// for a value with a known shape (a protocol's result, say) that can be
// written in one pass without reflection and, as a pointer in an
// interface, without an allocation. AppendValue trusts what it appends:
// exactly one valid, compact JSON value (no raw newline, which would end
// a newline-delimited frame). It calls AppendJSON for the value it is
// given only; a value nested in another is encoded by sonic, which knows
// json.Marshaler, not Appender. On an error AppendJSON returns dst
// unchanged with the error.
type Appender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

// AppendValue appends v as JSON: a Raw or json.RawMessage is copied verbatim
// (empty: null), nil is null, an Appender appends itself, anything else is
// encoded with sonic. On an error dst is returned unchanged with the
// error.
//
// A string of plain bytes only (printable ASCII but '"' and '\\': the
// usual short result) is quoted here, byte for byte what sonic writes,
// without sonic's per-value allocation (FuzzEncode compares the two).
func AppendValue(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case Raw:
		return appendRaw(dst, x), nil
	case json.RawMessage:
		return appendRaw(dst, x), nil
	case string:
		if plainPrefix(x) == len(x) {
			return appendQuoted(dst, x), nil
		}
	case Appender:
		n := len(dst)
		out, err := x.AppendJSON(dst)
		if err != nil {
			return dst[:n], err
		}
		return out, nil
	}
	return appendSonic(dst, v)
}

// appendSonic appends v as sonic encodes it; on an error dst is returned
// unchanged with the error.
func appendSonic(dst []byte, v any) ([]byte, error) {
	// sonic appends to the slice it is given. Handing it the spare capacity
	// of dst (rather than dst) makes it encode in place, and limits its
	// UTF-8 check to the new bytes. dst is not grown ahead: a pooled Buffer
	// whose capacity ran past its pool's calibrated size would be dropped
	// by Put, and calibrated buffers have room for the usual value.
	n := len(dst)
	h := tailPool.Get().(*[]byte)
	*h = dst[n:n]
	err := encoder.EncodeInto(h, v, encOpts)
	tail := *h
	*h = nil
	tailPool.Put(h)
	if err != nil {
		return dst, err
	}
	if len(tail) == 0 {
		return dst, nil
	}
	if len(tail) <= cap(dst)-n && &tail[0] == &dst[n:cap(dst)][0] {
		return dst[:n+len(tail)], nil // encoded in place
	}
	return append(dst, tail...), nil // sonic had to grow (or correct) it
}

// AppendString appends s as a JSON string, byte for byte what AppendValue
// appends for it, but without putting s in an interface (an allocation)
// when its bytes are all plain. Encoding a string cannot fail: invalid
// UTF-8 becomes U+FFFD.
func AppendString(dst []byte, s string) []byte {
	if plainPrefix(s) == len(s) {
		return appendQuoted(dst, s)
	}
	out, err := appendSonic(dst, s)
	if err != nil { // not for a string; should sonic ever say otherwise
		return appendString(dst, s)
	}
	return out
}

// tailPool recycles the slice header handed to sonic by address (an
// address that would otherwise escape: one allocation per value). It holds
// no buffer memory: the header is cleared before it goes back.
var tailPool = sync.Pool{New: func() any { return new([]byte) }}

// MarshalJSON returns r verbatim (null when empty), so that a Raw nested in
// a Go value is copied rather than encoded as base64, by sonic and by
// encoding/json alike. The result aliases r.
func (r Raw) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("null"), nil
	}
	return r, nil
}
