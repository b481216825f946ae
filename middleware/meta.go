package middleware

import (
	"bytes"

	"github.com/mcpwire/mcpwire/codec"
)

// Reading MCP's _meta object from a request's params: the credentials and
// trace context of stream transports, which have no header. params have
// been validated by the connection's scanner; a fault met here (params that
// are not an object, say) reads as "absent".

// metaObject returns params._meta's value, or nil when there is none.
// When a name occurs twice, the last one counts, as when the params are
// decoded.
func metaObject(params []byte) []byte {
	if !bytes.Contains(params, metaName) && bytes.IndexByte(params, '\\') < 0 {
		return nil // no _meta, not even escaped: no walk (memchr is faster)
	}
	if start, end, ok := memberSpan(params, "_meta"); ok {
		return params[start:end]
	}
	return nil
}

var metaName = []byte(`"_meta"`)

// metaSpan returns where params._meta.<name>'s value lies in params
// (params[start:end]), or ok == false when there is no such member.
func metaSpan(params []byte, name string) (start, end int, ok bool) {
	meta := metaObject(params)
	if meta == nil {
		return 0, 0, false
	}
	v0, v1, ok := memberSpan(meta, name)
	if !ok {
		return 0, 0, false
	}
	m0 := cap(params) - cap(meta) // meta is a sub-slice of params
	return m0 + v0, m0 + v1, true
}

// memberSpan returns where obj's member name's value lies in obj, the last
// one if the name is repeated; ok is false when obj is not an object or
// has no such member.
func memberSpan(obj []byte, name string) (start, end int, ok bool) {
	if codec.KindOf(obj) != codec.ValueObject {
		return 0, 0, false
	}
	var scratch [32]byte
	var m codec.Members
	m.Reset(obj)
	for m.Next() {
		if string(m.Name(scratch[:0])) == name {
			start, end, ok = m.Offset(), m.Offset()+len(m.Value()), true
		}
	}
	if m.Err() != nil {
		return 0, 0, false
	}
	return start, end, ok
}

// memberString returns obj's member name when it is a string, unescaped
// (a copy), and whether there was such a member at all: present but not a
// string gives ("", true).
func memberString(obj []byte, name string) (s string, present bool) {
	start, end, ok := memberSpan(obj, name)
	if !ok {
		return "", false
	}
	b, err := codec.Unquote(obj[start:end])
	if err != nil {
		return "", true
	}
	return string(b), true
}
