package streamable

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
)

// Under a stateless protocol version a request's headers mirror its
// body, so that intermediaries may route on them (the specification's
// "Request Metadata"): MCP-Protocol-Version its _meta's version, Mcp-Method
// its method, Mcp-Name the params' name (tools/call, prompts/get) or uri
// (resources/read). Each is required, and must be equal to the body's
// value, compared byte for byte once the header's surrounding white space
// is dropped and, for Mcp-Name, its Base64 form ("=?base64?…?=") decoded;
// otherwise the request is refused with -32020 (HeaderMismatch), which
// the handler answers 400.

// Header names of the stateless protocol versions.
const (
	headerMethod = "Mcp-Method"
	headerName   = "Mcp-Name"
)

// errNoMetaVersion answers a request of a stateless version whose body's
// _meta does not name its version (as package mcp does).
var errNoMetaVersion = codec.NewError(codec.CodeInvalidParams, "Invalid params: _meta must carry "+
	mcp.MetaProtocolVersion+" (a protocol version without initialize, such as "+mcp.Version20260728+")")

// mismatch is a -32020 error naming the header at fault.
func mismatch(header, what string) *codec.Error {
	return codec.NewError(codec.CodeHeaderMismatch, "Header mismatch: the "+header+" header "+what)
}

// checkHeaders returns the error a request m of a stateless version is
// refused with when its headers do not mirror its body, or nil.
func checkHeaders(hd http.Header, m *codec.Message) *codec.Error {
	nameKey := ""
	switch {
	case isMethod(m, "tools/call"), isMethod(m, "prompts/get"):
		nameKey = "name"
	case isMethod(m, "resources/read"):
		nameKey = "uri"
	}
	name, version := mirrored(m.Params, nameKey)
	if version == nil {
		return errNoMetaVersion
	}
	v, ok := headerValue(hd, headerVersion)
	switch {
	case !ok:
		return mismatch(headerVersion, "is required")
	case !equalString(version, v):
		return mismatch(headerVersion, "does not match the body's _meta "+mcp.MetaProtocolVersion)
	}
	method, ok := headerValue(hd, headerMethod)
	switch {
	case !ok:
		return mismatch(headerMethod, "is required")
	case !isMethod(m, method):
		return mismatch(headerMethod, "does not match the body's method")
	}
	if nameKey == "" {
		return nil
	}
	hv, ok := headerValue(hd, headerName)
	switch {
	case !ok && name == nil:
		return nil // the params lack it: the method refuses them
	case !ok:
		return mismatch(headerName, "is required for "+string(m.Method))
	}
	decoded, ok := decodeHeaderValue(hv)
	switch {
	case !ok:
		return mismatch(headerName, "is not a valid header value (or its Base64 form is malformed)")
	case !equalString(name, decoded):
		return mismatch(headerName, "does not match the body's params."+nameKey)
	}
	return nil
}

// mirrored returns the raw values of the params' member nameKey ("": none
// wanted) and of its _meta's protocol version; nil for those absent.
func mirrored(params []byte, nameKey string) (name, version []byte) {
	if codec.KindOf(params) != codec.ValueObject {
		return nil, nil
	}
	var top, meta codec.Members
	for top.Reset(params); top.Next(); {
		switch key := top.Name(nil); {
		case nameKey != "" && string(key) == nameKey:
			name = top.Value()
		case string(key) == "_meta" && codec.KindOf(top.Value()) == codec.ValueObject:
			for meta.Reset(top.Value()); meta.Next(); {
				if string(meta.Name(nil)) == mcp.MetaProtocolVersion {
					version = meta.Value()
				}
			}
		}
	}
	return name, version
}

// headerValue returns a header's first value without the white space
// around it (RFC 9110 §5.5), and whether it is present.
func headerValue(hd http.Header, key string) (string, bool) {
	vs := hd[key]
	if len(vs) == 0 {
		return "", false
	}
	return strings.Trim(vs[0], " \t"), true
}

// equalString reports whether raw, a JSON value, is the string s.
func equalString(raw []byte, s string) bool {
	if len(raw) == len(s)+2 && raw[0] == '"' && string(raw[1:len(raw)-1]) == s {
		return true // the common case: no escapes
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return false
	}
	u, err := codec.Unquote(raw)
	return err == nil && string(u) == s
}

// Markers of a header value in its Base64 form.
const (
	base64Prefix = "=?base64?"
	base64Suffix = "?="
)

// decodeHeaderValue returns a mirrored header's value: the UTF-8 bytes of
// its Base64 form ("=?base64?…?=", standard alphabet, padded), or the
// value itself, which must then be visible ASCII or inner spaces and tabs
// (RFC 9110 field values). It reports false for a value that is neither.
func decodeHeaderValue(v string) (string, bool) {
	if len(v) >= len(base64Prefix)+len(base64Suffix) && strings.HasPrefix(v, base64Prefix) && strings.HasSuffix(v, base64Suffix) {
		b, err := base64.StdEncoding.Strict().DecodeString(v[len(base64Prefix) : len(v)-len(base64Suffix)])
		return string(b), err == nil
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return "", false
		}
	}
	return v, true
}
