package middleware

import (
	"net/http"
	"strconv"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/principal"
)

// HTTPAuth returns an http.Handler that authenticates every HTTP request
// with authn before next sees it, from its Authorization header: for an
// endpoint whose sessions outlive one request, where Auth cannot see each
// request's header (MCP's Streamable HTTP, a WebSocket's upgrade). A
// refused request is answered 401 with "WWW-Authenticate: Bearer" (with
// error="invalid_token" when a credential was given, as RFC 6750 says) and
// a JSON-RPC error body, id null, with the code Auth would send (-32009; a
// *codec.Error of authn's with -32010 gives 403). An accepted request
// reaches next with the principal in its context (PrincipalFromContext).
// A nil authn returns next as it is.
//
// A CORS preflight (OPTIONS with Origin and Access-Control-Request-Method)
// reaches next unauthenticated, with no principal: browsers never send
// credentials with one, so refusing it would keep every page from calling.
// next must answer it without serving it (mcp's handlers do, from their
// CORS options). With mcp's handlers, put HTTPAuth in
// streamable.Options.Middleware rather than around them: its refusals then
// carry the CORS headers a page needs to read them.
func HTTPAuth(authn Authenticator, next http.Handler) http.Handler {
	if authn == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isPreflight(r) {
			next.ServeHTTP(w, r)
			return
		}
		cred := r.Header.Get("Authorization")
		who, err := authn.Authenticate(r.Context(), cred)
		if err != nil {
			refuse(w, unauthorized(err), cred != "")
			return
		}
		next.ServeHTTP(w, r.WithContext(principal.With(r.Context(), who)))
	})
}

// refuse answers a request HTTPAuth refused.
func refuse(w http.ResponseWriter, e *codec.Error, gaveCredential bool) {
	body := codec.AppendError(nil, nil, e)
	status := http.StatusUnauthorized
	switch {
	case e.Code == codec.CodeForbidden:
		status = http.StatusForbidden
	case gaveCredential:
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	default:
		w.Header().Set("WWW-Authenticate", "Bearer")
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// isPreflight reports whether r is a CORS preflight request.
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Origin") != "" && r.Header.Get("Access-Control-Request-Method") != ""
}
