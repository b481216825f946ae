package oauth_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/mcpwire/mcpwire/oauth"
)

// Discover tries RFC 8414's location first, then OpenID Connect's inserted
// and appended forms, and uses a document only if it names the issuer.
func TestDiscover_triesTheSpecifiedLocationsInOrder(t *testing.T) {
	var tried []string
	var srvURL string
	serveAt := map[string]string{} // path → issuer the document names
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tried = append(tried, r.URL.Path)
		iss, ok := serveAt[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		writeJSON(w, map[string]any{"issuer": srvURL + iss, "jwks_uri": srvURL + "/keys"})
	}))
	defer srv.Close()
	srvURL = srv.URL
	issuer := srv.URL + "/tenant1"

	_, err := oauth.Discover(t.Context(), nil, issuer)
	want := []string{
		"/.well-known/oauth-authorization-server/tenant1",
		"/.well-known/openid-configuration/tenant1",
		"/tenant1/.well-known/openid-configuration",
	}
	if !errors.Is(err, oauth.ErrDiscovery) || !slices.Equal(tried, want) {
		t.Fatalf("nothing served: err %v, tried %q, want %q", err, tried, want)
	}

	tried = nil
	serveAt["/tenant1/.well-known/openid-configuration"] = "/tenant1"
	md, err := oauth.Discover(t.Context(), nil, issuer)
	if err != nil || md.Issuer != issuer || md.JWKSURI != srv.URL+"/keys" || len(tried) != 3 {
		t.Fatalf("OpenID appended form: %+v, %v (tried %q)", md, err, tried)
	}

	tried = nil
	serveAt["/.well-known/oauth-authorization-server/tenant1"] = "/tenant2" // another issuer's document
	if md, err := oauth.Discover(t.Context(), nil, issuer); !errors.Is(err, oauth.ErrDiscovery) || md != nil {
		t.Errorf("a document naming another issuer was used: %+v, %v", md, err)
	}

	if _, err := oauth.Discover(t.Context(), nil, "ftp://as.example.test"); !errors.Is(err, oauth.ErrDiscovery) {
		t.Errorf("ftp issuer: %v", err)
	}
}
