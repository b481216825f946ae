package middleware_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/middleware"
)

func TestHTTPAuth(t *testing.T) {
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := middleware.PrincipalFromContext(r.Context())
		io.WriteString(w, p.(string))
	})
	readOnly := middleware.AuthenticatorFunc(func(ctx context.Context, cred string) (any, error) {
		if cred == "Bearer ro" {
			return nil, codec.NewError(codec.CodeForbidden, "Forbidden: read-only token")
		}
		return middleware.BearerToken(token).Authenticate(ctx, cred)
	})
	h := middleware.HTTPAuth(readOnly, next)
	for _, tc := range []struct {
		name, auth    string
		status        int
		wwwAuth, body string
	}{
		{"none", "", 401, "Bearer", `{"jsonrpc":"2.0","id":null,"error":{"code":-32009,"message":"Unauthorized: credentials required (an Authorization header, or params._meta.authorization on stream transports)"}}`},
		{"wrong", "Bearer nope", 401, `Bearer error="invalid_token"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32009,"message":"Unauthorized: invalid credentials"}}`},
		{"forbidden", "Bearer ro", 403, "", `{"jsonrpc":"2.0","id":null,"error":{"code":-32010,"message":"Forbidden: read-only token"}}`},
		{"right", "Bearer " + token, 200, "", middleware.BearerPrincipal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/mcp", nil)
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != tc.status || w.Header().Get("WWW-Authenticate") != tc.wwwAuth || w.Body.String() != tc.body {
				t.Errorf("%d %q %s", w.Code, w.Header().Get("WWW-Authenticate"), w.Body)
			}
			if tc.status != 200 && w.Header().Get("Content-Type") != "application/json" {
				t.Errorf("Content-Type %q", w.Header().Get("Content-Type"))
			}
		})
	}
	// No Authenticator: every request goes through, unauthenticated.
	w := httptest.NewRecorder()
	middleware.HTTPAuth(nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := middleware.PrincipalFromContext(r.Context()); ok {
			t.Error("a principal without authentication")
		}
		w.WriteHeader(http.StatusTeapot)
	})).ServeHTTP(w, httptest.NewRequest("POST", "/mcp", nil))
	if w.Code != http.StatusTeapot {
		t.Errorf("HTTPAuth(nil, next) answered %d", w.Code)
	}
}

// TestHTTPAuth_preflight: a CORS preflight, which browsers send without
// credentials, reaches next unauthenticated (no principal); an OPTIONS that
// is no preflight is authenticated as any request.
func TestHTTPAuth_preflight(t *testing.T) {
	h := middleware.HTTPAuth(middleware.BearerToken(token), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := middleware.PrincipalFromContext(r.Context()); ok {
			t.Error("a preflight has a principal")
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	for _, tc := range []struct {
		name   string
		hdr    []string
		status int
	}{
		{"preflight", []string{"Origin", "https://app.example.com", "Access-Control-Request-Method", "POST"}, 204},
		{"no request method", []string{"Origin", "https://app.example.com"}, 401},
		{"no origin", []string{"Access-Control-Request-Method", "POST"}, 401},
	} {
		req := httptest.NewRequest(http.MethodOptions, "/mcp", nil)
		for i := 0; i < len(tc.hdr); i += 2 {
			req.Header.Set(tc.hdr[i], tc.hdr[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != tc.status {
			t.Errorf("%s: %d, want %d", tc.name, w.Code, tc.status)
		}
	}
}
