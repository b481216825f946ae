package oauth_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/mcpwire/mcpwire/oauth"
)

// A resource at https://mcp.example.com/mcp publishes its metadata and
// refuses requests without a token that grants the "mcp" scope. A real
// server passes a JWTVerifier or an IntrospectionVerifier.
func Example() {
	const resource = "https://mcp.example.com/mcp"
	mdPath, _ := oauth.MetadataPath(resource)
	mdURL, _ := oauth.MetadataURL(resource)
	md, _ := oauth.MetadataHandler(oauth.ResourceMetadata{
		Resource:             resource,
		AuthorizationServers: []string{"https://auth.example.com"},
		ScopesSupported:      []string{"mcp"},
	})
	verifier := oauth.VerifierFunc(func(ctx context.Context, token string) (*oauth.Principal, error) {
		if token != "let-me-in" {
			return nil, oauth.ErrTokenInactive
		}
		return &oauth.Principal{Subject: "alice", Scopes: []string{"mcp"}}, nil
	})
	bearer := oauth.NewBearer(verifier, &oauth.BearerOptions{ResourceMetadataURL: mdURL, Scopes: []string{"mcp"}})

	mux := http.NewServeMux()
	mux.Handle(mdPath, md)
	mux.Handle("/mcp", bearer.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := oauth.FromContext(r.Context())
		fmt.Fprintf(w, "hello %s", p.Subject)
	})))

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("POST", "/mcp", nil))
	fmt.Println(rec.Code, rec.Header().Get("WWW-Authenticate"))

	rec = httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/mcp", nil)
	req.Header.Set("Authorization", "Bearer let-me-in")
	mux.ServeHTTP(rec, req)
	fmt.Println(rec.Code, rec.Body)
	// Output:
	// 401 Bearer scope="mcp", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	// 200 hello alice
}
