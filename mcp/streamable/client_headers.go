package streamable

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"strings"
	"sync"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
)

// Under a stateless version (2026-07-28) each POST carries, beside
// MCP-Protocol-Version, headers that mirror its body for the proxies and
// load balancers in front of the server: Mcp-Method (the method),
// Mcp-Name (the tool's or prompt's name, the resource's URI) and, for
// tools/call, an Mcp-Param-{Name} for each argument the tool's input
// schema annotates with x-mcp-header (told by the session after
// tools/list: ToolHeaders). A value that is not plain visible ASCII is
// sent in base64 (headerValue).

// Header names of the stateless versions.
const (
	headerMethod     = "Mcp-Method"
	headerName       = "Mcp-Name"
	headerParamStart = "Mcp-Param-"
)

// metaVersionKey is the _meta member naming a request's version, as it
// stands in JSON.
var metaVersionKey = []byte(`"` + mcp.MetaProtocolVersion + `"`)

// toolHeaders holds the x-mcp-header annotations of the tools listed:
// tool name → []mcp.ParamHeader.
type toolHeaders struct{ m sync.Map }

// ToolHeaders implements mcp.ToolHeaderTransport.
func (t *httpClientStream) ToolHeaders(tool string, h []mcp.ParamHeader) {
	if len(h) == 0 {
		t.tools.m.Delete(tool)
		return
	}
	t.tools.m.Store(tool, h)
}

// modernHeaders returns the headers of a POST of m when its params name a
// stateless version in _meta; nil for a message of the older versions,
// which carries the session's headers alone.
func (t *httpClientStream) modernHeaders(m *codec.Message) http.Header {
	if len(m.Params) == 0 || !bytes.Contains(m.Params, metaVersionKey) {
		return nil
	}
	meta, ok := codec.Member(m.Params, "_meta")
	if !ok {
		return nil
	}
	v, ok := codec.Member(meta, mcp.MetaProtocolVersion)
	if !ok {
		return nil
	}
	version, err := codec.Unquote(v)
	if err != nil || !mcp.IsStatelessVersion(string(version)) {
		return nil
	}
	method := string(m.AppendMethod(nil))
	h := http.Header{}
	h.Set(headerVersion, string(version))
	h.Set(headerMethod, method)
	var nameKey string
	switch method {
	case "tools/call", "prompts/get":
		nameKey = "name"
	case "resources/read":
		nameKey = "uri"
	case "tasks/get", "tasks/update", "tasks/cancel":
		nameKey = "taskId"
	default:
		return h
	}
	raw, ok := codec.Member(m.Params, nameKey)
	if !ok {
		return h
	}
	name, err := codec.Unquote(raw)
	if err != nil {
		return h
	}
	h.Set(headerName, headerValue(string(name)))
	if method == "tools/call" {
		if ph, ok := t.tools.m.Load(string(name)); ok {
			args, _ := codec.Member(m.Params, "arguments")
			paramHeaders(h, ph.([]mcp.ParamHeader), args)
		}
	}
	return h
}

// paramHeaders adds to h an Mcp-Param header for each annotation whose
// argument args has: a string as it is, an integer or a boolean as its
// JSON text; null or a missing argument is left out.
func paramHeaders(h http.Header, ph []mcp.ParamHeader, args []byte) {
	for _, p := range ph {
		v, ok := args, len(args) > 0
		for _, name := range p.Path {
			if !ok || codec.KindOf(v) != codec.ValueObject {
				ok = false
				break
			}
			v, ok = codec.Member(v, name)
		}
		if !ok {
			continue
		}
		var s string
		switch codec.KindOf(v) {
		case codec.ValueString:
			u, err := codec.Unquote(v)
			if err != nil {
				continue
			}
			s = string(u)
		case codec.ValueNumber, codec.ValueTrue, codec.ValueFalse:
			s = string(v)
		default:
			continue
		}
		h[headerParamStart+p.Name] = []string{headerValue(s)}
	}
}

// base64Start and base64End wrap a header value sent in base64.
const (
	base64Start = "=?base64?"
	base64End   = "?="
)

// headerValue returns s as a header value: as it is when it is plain
// visible ASCII (spaces inside only), else (or when it looks like an
// encoded value itself) its UTF-8 in base64 between base64Start and
// base64End.
func headerValue(s string) string {
	plain := s == strings.TrimSpace(s) &&
		!(strings.HasPrefix(s, base64Start) && strings.HasSuffix(s, base64End))
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] <= 0x7e
	}
	if plain {
		return s
	}
	return base64Start + base64.StdEncoding.EncodeToString([]byte(s)) + base64End
}
