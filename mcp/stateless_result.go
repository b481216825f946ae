package mcp

import (
	"bytes"
	"slices"

	"github.com/mcpwire/mcpwire/codec"
)

// statelessResult is the result of a stateless request: the handler's,
// with what the version adds to every result (resultType, the server's
// identity in _meta) and to those a client may cache (ttlMs and
// cacheScope: 0 and "private", fresh for no time and for this client
// alone).
type statelessResult struct {
	v         any
	info      []byte // the server's Implementation, encoded
	cacheable bool
}

// AppendJSON implements codec.Appender.
func (r *statelessResult) AppendJSON(b []byte) ([]byte, error) {
	n := len(b)
	b, err := codec.AppendValue(b, r.v)
	if err != nil {
		return b, err
	}
	obj := bytes.Clone(b[n:])
	return appendStateless(b[:n], obj, r.info, r.cacheable), nil
}

// appendStateless appends obj, a result object, with the members a
// stateless version requires that it lacks: resultType "complete",
// _meta's serverInfo (info), and when cacheable ttlMs and cacheScope.
// Members obj has are kept as they are; what is not an object is
// appended unchanged.
func appendStateless(dst, obj, info []byte, cacheable bool) []byte {
	obj = bytes.TrimSpace(obj)
	var m codec.Members
	m.Reset(obj)
	var has struct{ resultType, ttl, scope, meta bool }
	metaAt, metaEmpty, metaInfo := -1, true, false
	for m.Next() {
		switch string(m.Name(nil)) {
		case "resultType":
			has.resultType = true
		case "ttlMs":
			has.ttl = true
		case "cacheScope":
			has.scope = true
		case "_meta":
			has.meta = true
			if v := m.Value(); codec.KindOf(v) == codec.ValueObject {
				metaAt = m.Offset()
				var mm codec.Members
				mm.Reset(v)
				for mm.Next() {
					metaEmpty = false
					metaInfo = metaInfo || string(mm.Name(nil)) == MetaServerInfo
				}
			}
		}
	}
	if m.Err() != nil {
		return append(dst, obj...)
	}
	var add [][]byte
	if !has.resultType {
		add = append(add, []byte(`"resultType":"complete"`))
	}
	if cacheable && !has.ttl {
		add = append(add, []byte(`"ttlMs":0`))
	}
	if cacheable && !has.scope {
		add = append(add, []byte(`"cacheScope":"private"`))
	}
	if !has.meta {
		add = append(add, slices.Concat([]byte(`{"`+MetaServerInfo+`":`), info, []byte(`}`)))
		add[len(add)-1] = slices.Concat([]byte(`"_meta":`), add[len(add)-1])
	}
	dst = append(dst, '{')
	for i, a := range add {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, a...)
	}
	rest := obj[1:]
	if len(add) > 0 && len(bytes.TrimSpace(rest)) > 1 { // more members follow
		dst = append(dst, ',')
	}
	if metaAt < 0 || metaInfo {
		return append(dst, rest...)
	}
	// Into the result's own _meta object, first.
	dst = append(dst, obj[1:metaAt+1]...)
	dst = append(dst, `"`+MetaServerInfo+`":`...)
	dst = append(dst, info...)
	if !metaEmpty {
		dst = append(dst, ',')
	}
	return append(dst, obj[metaAt+1:]...)
}
