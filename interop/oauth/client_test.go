package oauthinterop_test

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/oauth"
)

// oauth.Authorizer, a machine client (client credentials), against the
// real provider: the 401 leads it through the resource's metadata and the
// provider's discovery to a token the resource accepts, and the 403 of
// /mcp/admin to a second one with the scope it names (step up). Neither
// the secret nor a token reaches a log record, the Authorizer's included.
func TestAuthorizer_againstARealProvider(t *testing.T) {
	e := newEnv(t, "jwt")
	store := &oauth.MemoryTokenStore{}
	a, err := oauth.NewAuthorizer(&oauth.AuthorizerOptions{
		Grant: oauth.ClientCredentials, ClientID: jwtApp, ClientSecret: appSecret, Store: store,
		Logger: slog.New(slog.NewJSONHandler(e, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: a.Transport(nil)}
	for _, tc := range []struct{ path, want string }{
		{"/mcp", "id1 mcp"},
		{"/mcp/admin", "admin"},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), "POST", e.rs.URL+tc.path, strings.NewReader(`{}`))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(body) != tc.want {
			t.Errorf("%s: %d %s, want 200 %s", tc.path, resp.StatusCode, body, tc.want)
		}
		tok, _ := store.Token(t.Context(), e.rs.URL+tc.path)
		if tok == nil {
			t.Fatalf("%s: no token stored", tc.path)
		}
		e.seen = append(e.seen, tok.AccessToken)
	}
	e.logMu.Lock()
	defer e.logMu.Unlock()
	if !strings.Contains(e.logs.String(), "oauth: authorized") {
		t.Errorf("the authorizations were not logged:\n%s", e.logs.String())
	}
}
