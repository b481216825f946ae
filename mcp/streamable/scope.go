package streamable

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/httpjson"
	"github.com/mcpwire/mcpwire/mcp"
)

// missingScopes returns the scopes the requests of body need
// (mcp.Server.RequiredScopes) that the principal of r's context does not
// grant, and whether r's context carries a principal at all; nil when
// nothing is missing, or when body does not scan (it is refused
// elsewhere).
func (b *bodyScanner) missingScopes(srv *mcp.Server, r *http.Request, body []byte) (missing []string, ok bool) {
	if !srv.DeclaresScopes() {
		return nil, true
	}
	sc, _ := b.scanners.Get().(*codec.Scanner)
	if sc == nil {
		sc = codec.NewScanner(&b.limits)
	}
	defer b.scanners.Put(sc)
	msgs, _, err := sc.Scan(body)
	if err != nil {
		return nil, true
	}
	var need []string
	var name []byte
	for i := range msgs {
		m := &msgs[i]
		if m.Kind != codec.KindRequest && m.Kind != codec.KindNotification {
			continue
		}
		name = m.AppendMethod(name[:0])
		need = append(need, srv.RequiredScopes(string(name), m.Params)...)
	}
	if len(need) == 0 {
		return nil, true
	}
	return mcp.MissingScopes(r.Context(), need)
}

// grantsScopes checks the scopes body's requests need against r's
// principal, and answers r itself when one is missing: 401 with
// "WWW-Authenticate: Bearer" and -32009 when r carries no principal, else
// 403 with error="insufficient_scope" and scope="<the missing scopes>"
// (RFC 6750 §3.1, the MCP specification's step-up) and -32010, data
// {"scope": …}. Both name o.ResourceMetadataURL, if set. It reports
// whether r may be served.
func grantsScopes(b *bodyScanner, srv *mcp.Server, o *Options, w http.ResponseWriter, r *http.Request, body []byte) bool {
	missing, ok := b.missingScopes(srv, r, body)
	if ok && missing == nil {
		return true
	}
	var params []string
	status, e := http.StatusForbidden, mcp.ScopeError(missing)
	if !ok {
		status = http.StatusUnauthorized
		e = codec.NewError(codec.CodeUnauthorized, "Unauthorized: an access token is required")
	} else {
		params = append(params, `error="insufficient_scope"`, `scope=`+strconv.Quote(strings.Join(missing, " ")),
			`error_description="the access token lacks a required scope"`)
	}
	if o.ResourceMetadataURL != "" {
		params = append(params, `resource_metadata=`+strconv.Quote(o.ResourceMetadataURL))
	}
	h := w.Header()
	h.Set("WWW-Authenticate", strings.TrimSpace("Bearer "+strings.Join(params, ", ")))
	h["Content-Type"] = httpjson.ContentType
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(codec.AppendError(nil, nil, e))
	return false
}

// ChecksScopes implements mcp's scope-checking hook: the handler checks
// each body's scopes (grantsScopes) before the session serves it, against
// the credentials of the POST that carried it, which the session's
// context does not hold.
func (s *httpSession) ChecksScopes() bool { return true }

// legacyHook is an HTTP+SSE session's mcp.SessionTransport: the handler
// checks each POST's scopes (grantsScopes) as for Streamable HTTP; pings
// go on the session's one stream, as everything it sends does.
type legacyHook struct{ s *legacySession }

func (legacyHook) CloseStream([]byte) bool { return false }
func (legacyHook) SessionEnded()           {}
func (legacyHook) ChecksScopes() bool      { return true }

func (h legacyHook) PingSink() func(msg []byte) {
	return func(msg []byte) { _ = h.s.WriteMessage(msg) }
}

// ChecksScopes implements mcp's scope-checking hook for the requests of
// the stateless versions, whose POSTs grantsScopes checked too.
func (homeTransport) ChecksScopes() bool { return true }
