package mcp

import (
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
	return completeResult(b, n, r.info, r.cacheable), nil
}

// Members a stateless result may lack, as they are inserted.
var (
	memberResultType = []byte(`"resultType":"complete",`)
	memberCache      = []byte(`"ttlMs":0,"cacheScope":"private",`)
	memberTTL        = []byte(`"ttlMs":0,`)
	memberScope      = []byte(`"cacheScope":"private",`)
	memberMeta       = []byte(`"_meta":{"` + MetaServerInfo + `":`)
	memberInfo       = []byte(`"` + MetaServerInfo + `":`)
	closeComma       = []byte(`},`)
)

// completeResult adds to the result object b[at:] the members a stateless
// version requires that it lacks — resultType "complete", the server's
// identity (info) in _meta, and when cacheable ttlMs and cacheScope — in
// place, and returns b. Members the result has are kept as they are; what
// is not an object is left unchanged.
func completeResult(b []byte, at int, info []byte, cacheable bool) []byte {
	for at < len(b) && (b[at] == ' ' || b[at] == '\t' || b[at] == '\n' || b[at] == '\r') {
		at++
	}
	var m codec.Members
	m.Reset(b[at:])
	var hasType, hasTTL, hasScope, hasMeta, hasInfo bool
	metaAt, metaEmpty := -1, true
	for m.Next() {
		switch string(m.Name(nil)) {
		case "resultType":
			hasType = true
		case "ttlMs":
			hasTTL = true
		case "cacheScope":
			hasScope = true
		case "_meta":
			hasMeta = true
			if v := m.Value(); codec.KindOf(v) == codec.ValueObject {
				metaAt = at + m.Offset()
				var mm codec.Members
				mm.Reset(v)
				for mm.Next() {
					metaEmpty = false
					hasInfo = hasInfo || string(mm.Name(nil)) == MetaServerInfo
				}
			}
		}
	}
	if m.Err() != nil {
		return b
	}
	empty := m.Index() < 0
	if empty {
		b = append(b[:at+1], '}') // white space inside dropped
	}
	// Into the result's own _meta first, the later place: the earlier
	// insertion then leaves its offset alone.
	if metaAt >= 0 && !hasInfo {
		i := metaAt + 1
		if !metaEmpty {
			b = slices.Insert(b, i, ',')
		}
		b = slices.Insert(b, i, info...)
		b = slices.Insert(b, i, memberInfo...)
	}
	i := at + 1
	if !hasMeta {
		b = slices.Insert(b, i, closeComma...)
		b = slices.Insert(b, i, info...)
		b = slices.Insert(b, i, memberMeta...)
	}
	switch {
	case !cacheable:
	case !hasTTL && !hasScope:
		b = slices.Insert(b, i, memberCache...)
	case !hasTTL:
		b = slices.Insert(b, i, memberTTL...)
	case !hasScope:
		b = slices.Insert(b, i, memberScope...)
	}
	if !hasType {
		b = slices.Insert(b, i, memberResultType...)
	}
	if empty { // what was inserted ends with a comma, before the brace
		b = slices.Delete(b, len(b)-2, len(b)-1)
	}
	return b
}
