// Package httpjson holds what the project's HTTP handlers (transport's
// JSON-RPC over POST and WebSocket, mcp's Streamable HTTP) share: the JSON
// content type and a JSON-RPC error body written with a status.
package httpjson

import (
	"net/http"
	"strings"

	"github.com/mcpwire/mcpwire/codec"
)

// ContentType is the header value of a JSON body, assigned to header maps
// as it is (Header.Set would allocate per response). Shared, never
// modified; its capacity is its length, so an Add to a header copies it.
var ContentType = []string{"application/json"}

// Error answers with status and a JSON-RPC error response without id.
func Error(w http.ResponseWriter, status int, code codec.Code, msg string) {
	w.Header()["Content-Type"] = ContentType
	w.WriteHeader(status)
	w.Write(codec.AppendError(nil, nil, codec.NewError(code, msg)))
}

// MediaType returns a Content-Type without its parameters.
func MediaType(ct string) string {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.TrimSpace(mt)
}

// IsJSON reports whether a Content-Type is application/json, with or
// without parameters.
func IsJSON(ct string) bool {
	if ct == "application/json" { // as clients spell it: spare MediaType and EqualFold
		return true
	}
	return strings.EqualFold(MediaType(ct), "application/json")
}
