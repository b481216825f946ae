package mcp

import (
	"slices"

	"github.com/mcpwire/mcpwire/codec"
)

// statelessResult is the result of a stateless request: the handler's,
// with what the version adds to every result (resultType, the server's
// identity in _meta) and to those a client may cache (ttlMs and
// cacheScope, from hint: see CachingOptions).
type statelessResult struct {
	v    any
	info []byte     // the server's Implementation, encoded
	head []byte     // statelessHead(info)
	hint *cacheHint // nil: not cacheable
}

// AppendJSON implements codec.Appender.
func (r *statelessResult) AppendJSON(b []byte) ([]byte, error) {
	n := len(b)
	var out []byte
	var err error
	if cr, ok := r.v.(*commonResult); ok { // the usual: AppendValue's type switch spared
		out, err = cr.AppendJSON(b) // as AppendValue calls it
	} else {
		out, err = codec.AppendValue(b, r.v)
	}
	if err != nil {
		return b[:n], err // as AppendValue returns it
	}
	b = out
	if r.hint == nil && plainToolResult(r.v) && len(b) > n+1 && b[n] == '{' && b[n+1] != '}' {
		// tools/call's result: this package encodes it without resultType
		// or _meta, and never empty (content is always there), so what
		// completeResult would find missing is known without a walk.
		return insertAt(b, n+1, r.head), nil
	}
	return completeResult(b, n, r.info, r.hint), nil
}

// insertAt is slices.Insert(b, i, s...), without its generality's cost.
func insertAt(b []byte, i int, s []byte) []byte {
	n := len(b)
	b = append(b, s...) // room: what it appends is overwritten
	copy(b[i+len(s):], b[i:n])
	copy(b[i:], s)
	return b
}

// plainToolResult reports whether v is a tool's result without a _meta of
// its own, as tools/call answers it.
func plainToolResult(v any) bool {
	switch r := v.(type) {
	case *commonResult:
		return r.Meta == nil
	case *CallToolResult:
		return r.Meta == nil
	}
	return false
}

// statelessHead is what completeResult inserts at the head of a result
// that has none of its members and no cache hint, for the server whose
// Implementation info encodes.
func statelessHead(info []byte) []byte {
	return slices.Concat(memberResultType, memberMeta, info, closeComma)
}

// Members a stateless result may lack, as they are inserted.
var (
	memberResultType = []byte(`"resultType":"complete",`)
	memberMeta       = []byte(`"_meta":{"` + MetaServerInfo + `":`)
	memberInfo       = []byte(`"` + MetaServerInfo + `":`)
	closeComma       = []byte(`},`)
)

// completeResult adds to the result object b[at:] the members a stateless
// version requires that it lacks — resultType "complete", the server's
// identity (info) in _meta, and when cacheable (hint not nil) ttlMs and
// cacheScope — in place, and returns b. Members the result has are kept
// as they are; what is not an object is left unchanged; an interim
// result (a resultType other than "complete") gets no hint. A result that
// lacked them all starts with resultType, then ttlMs and cacheScope (what
// the HTTP transport looks for: mcp/streamable's ETag).
func completeResult(b []byte, at int, info []byte, hint *cacheHint) []byte {
	for at < len(b) && (b[at] == ' ' || b[at] == '\t' || b[at] == '\n' || b[at] == '\r') {
		at++
	}
	var m codec.Members
	m.Reset(b[at:])
	var hasType, hasTTL, hasScope, hasMeta, hasInfo, interim bool
	metaAt, metaEmpty := -1, true
	for m.Next() {
		switch string(m.Name(nil)) {
		case "resultType":
			hasType = true
			// An interim result (input_required) is not cacheable: no hint.
			interim = string(m.Value()) != `"complete"`
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
	if hint != nil && !interim {
		if !hasScope {
			b = slices.Insert(b, i, hint.scope...)
		}
		if !hasTTL {
			b = slices.Insert(b, i, hint.ttlMs...)
		}
	}
	if !hasType {
		b = slices.Insert(b, i, memberResultType...)
	}
	if empty { // what was inserted ends with a comma, before the brace
		b = slices.Delete(b, len(b)-2, len(b)-1)
	}
	return b
}
