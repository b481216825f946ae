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
func HTTPAuth(authn Authenticator, next http.Handler) http.Handler {
	if authn == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
