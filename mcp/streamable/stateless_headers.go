package streamable

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/reqmeta"
	"github.com/mcpwire/mcpwire/mcp"
)

// Under a stateless protocol version a request's headers mirror its
// body, so that intermediaries may route on them (the specification's
// "Request Metadata"): MCP-Protocol-Version its _meta's version, Mcp-Method
// its method, Mcp-Name the params' name (tools/call, prompts/get), uri
// (resources/read) or taskId (tasks/get, tasks/update and tasks/cancel of
// the tasks extension). Each is required, and must be equal to the body's
// value, compared byte for byte once the header's surrounding white space
// is dropped and, for Mcp-Name, its Base64 form ("=?base64?…?=") decoded;
// otherwise the request is refused with -32020 (HeaderMismatch), which
// the handler answers 400.

// errNoMetaVersion answers a request of a stateless version whose body's
// _meta does not name its version (as package mcp does).
var errNoMetaVersion = codec.NewError(codec.CodeInvalidParams, "Invalid params: _meta must carry "+
	mcp.MetaProtocolVersion+" (a protocol version without initialize, such as "+mcp.Version20260728+")")

// mismatch is a -32020 error naming the header at fault.
func mismatch(header, what string) *codec.Error {
	return codec.NewError(codec.CodeHeaderMismatch, "Header mismatch: the "+header+" header "+what)
}

// checkHeaders returns the error a request m of a stateless version is
// refused with when its headers hd (MCP-Protocol-Version's lines:
// versions) do not mirror its body, or nil. view is
// what reqmeta.View.Read found in m's params (a zero View if it was not
// called). srv's tools say which arguments of a tools/call are mirrored
// (Mcp-Param-*).
func checkHeaders(hd http.Header, versions []string, m *codec.Message, view *reqmeta.View, srv *mcp.Server) *codec.Error {
	nameKey, call := "", isMethod(m, "tools/call")
	switch {
	case call, isMethod(m, "prompts/get"):
		nameKey = "name"
	case isMethod(m, "resources/read"):
		nameKey = "uri"
	case isMethod(m, "tasks/get"), isMethod(m, "tasks/update"), isMethod(m, "tasks/cancel"):
		nameKey = "taskId" // the tasks extension's routing header
	}
	var name, version []byte
	if view.Whole && !view.Repeated && (nameKey == "name" || nameKey == "") {
		// Each member is the only one of its name: the first, as mirrored
		// finds it.
		version = view.Version
		if nameKey != "" {
			name = view.Name
		}
	} else {
		name, version = mirrored(m.Params, nameKey)
	}
	if version == nil {
		return errNoMetaVersion
	}
	v, ok := firstValue(versions)
	switch {
	case !ok:
		return mismatch(headerVersion, "is required")
	case !equalString(version, v):
		return mismatch(headerVersion, "does not match the body's _meta "+mcp.MetaProtocolVersion)
	}
	method, ok := fieldValue(hd, headerMethod)
	switch {
	case !ok:
		return mismatch(headerMethod, "is required")
	case !isMethod(m, method):
		return mismatch(headerMethod, "does not match the body's method")
	}
	if nameKey == "" {
		return nil
	}
	hv, ok := fieldValue(hd, headerName)
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
	if call {
		if ps := srv.ParamHeaders(decoded); ps != nil {
			return checkParamHeaders(hd, m.Params, ps)
		}
	}
	return nil
}

// checkParamHeaders checks the Mcp-Param-* headers of a tools/call whose
// tool mirrors these parameters: each argument given (not null) needs its
// header, equal to it once decoded (a string as it is, a number compared
// as a number, a boolean as true or false); an argument absent or null
// needs none.
func checkParamHeaders(hd http.Header, params []byte, ps []mcp.ParamHeader) *codec.Error {
	args, _ := codec.Member(params, "arguments")
	for _, p := range ps {
		key := textproto.CanonicalMIMEHeaderKey(headerParamStart + p.Name)
		v := args
		for _, name := range p.Path {
			if codec.KindOf(v) != codec.ValueObject {
				v = nil
				break
			}
			v, _ = codec.Member(v, name)
		}
		hv, ok := fieldValue(hd, key)
		switch {
		case !ok && (v == nil || string(v) == "null"):
			continue
		case !ok:
			return mismatch(key, "is required: the tool mirrors its argument "+strings.Join(p.Path, "."))
		case v == nil || string(v) == "null":
			return mismatch(key, "is given, but the body has no argument "+strings.Join(p.Path, "."))
		}
		decoded, ok := decodeHeaderValue(hv)
		if !ok {
			return mismatch(key, "is not a valid header value (or its Base64 form is malformed)")
		}
		if !equalArgument(v, decoded) {
			return mismatch(key, "does not match the body's argument "+strings.Join(p.Path, "."))
		}
	}
	return nil
}

// equalArgument reports whether raw, an argument's JSON value, is what
// the header s says: a string's text, a number's value, true or false.
func equalArgument(raw []byte, s string) bool {
	switch codec.KindOf(raw) {
	case codec.ValueString:
		return equalString(raw, s)
	case codec.ValueNumber:
		a, err1 := strconv.ParseFloat(string(raw), 64)
		b, err2 := strconv.ParseFloat(s, 64)
		return err1 == nil && err2 == nil && a == b
	}
	return string(raw) == s && (s == "true" || s == "false")
}

// mirrored returns the raw values of the params' member nameKey ("": none
// wanted) and of its _meta's protocol version, the first of each as
// codec.Member finds them; nil for those absent. One walk over params.
func mirrored(params []byte, nameKey string) (name, version []byte) {
	var it codec.Members
	var scratch [64]byte
	wantName, wantMeta := nameKey != "", true
	for it.Reset(params); (wantName || wantMeta) && it.Next(); {
		switch n := it.Name(scratch[:0]); {
		case wantName && string(n) == nameKey:
			name, wantName = it.Value(), false
		case wantMeta && string(n) == "_meta":
			wantMeta = false
			if meta := it.Value(); codec.KindOf(meta) == codec.ValueObject {
				version, _ = codec.Member(meta, mcp.MetaProtocolVersion)
			}
		}
	}
	return name, version
}

// fieldValue returns a header's first value without the white space
// around it (RFC 9110 §5.5), and whether it is present.
func fieldValue(hd http.Header, key string) (string, bool) {
	return firstValue(hd[key])
}

// firstValue is fieldValue for a header's lines vs.
func firstValue(vs []string) (string, bool) {
	if len(vs) == 0 {
		return "", false
	}
	return textproto.TrimString(vs[0]), true
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

// decodeHeaderValue returns a mirrored header's value: the UTF-8 bytes of
// its Base64 form ("=?base64?…?=", standard alphabet, padded), or the
// value itself, which must then be visible ASCII or inner spaces and tabs
// (RFC 9110 field values). It reports false for a value that is neither.
func decodeHeaderValue(v string) (string, bool) {
	if len(v) >= len(base64Start)+len(base64End) && strings.HasPrefix(v, base64Start) && strings.HasSuffix(v, base64End) {
		b, err := base64.StdEncoding.Strict().DecodeString(v[len(base64Start) : len(v)-len(base64End)])
		return string(b), err == nil
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return "", false
		}
	}
	return v, true
}
