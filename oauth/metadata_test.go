package oauth_test

import (
	"io"
	"net/http/httptest"
	"testing"

	"github.com/mcpwire/mcpwire/oauth"
)

func TestMetadataPath(t *testing.T) {
	for _, tc := range []struct{ resource, path, url string }{
		{"https://h.test/mcp", "/.well-known/oauth-protected-resource/mcp", "https://h.test/.well-known/oauth-protected-resource/mcp"},
		{"https://h.test/a/b/", "/.well-known/oauth-protected-resource/a/b", "https://h.test/.well-known/oauth-protected-resource/a/b"},
		{"https://h.test", "/.well-known/oauth-protected-resource", "https://h.test/.well-known/oauth-protected-resource"},
		{"http://127.0.0.1:8080/", "/.well-known/oauth-protected-resource", "http://127.0.0.1:8080/.well-known/oauth-protected-resource"},
		{"https://h.test/mcp?x=1", "", ""},
		{"https://h.test/mcp#f", "", ""},
		{"/mcp", "", ""},
		{"ftp://h.test/mcp", "", ""},
	} {
		p, err := oauth.MetadataPath(tc.resource)
		u, uerr := oauth.MetadataURL(tc.resource)
		if p != tc.path || u != tc.url || (tc.path == "") != (err != nil) || (err != nil) != (uerr != nil) {
			t.Errorf("%s: %q %v, %q %v; want %q, %q", tc.resource, p, err, u, uerr, tc.path, tc.url)
		}
	}
}

func TestMetadataHandler_servesTheDocument(t *testing.T) {
	h, err := oauth.MetadataHandler(oauth.ResourceMetadata{
		Resource:             "https://h.test/mcp",
		AuthorizationServers: []string{"https://as.test"},
		ScopesSupported:      []string{"mcp", "tools:write"},
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/.well-known/oauth-protected-resource/mcp", nil))
	body, _ := io.ReadAll(rec.Result().Body)
	want := `{"resource":"https://h.test/mcp","authorization_servers":["https://as.test"],"scopes_supported":["mcp","tools:write"],"bearer_methods_supported":["header"]}`
	if rec.Code != 200 || string(body) != want || rec.Header().Get("Content-Type") != "application/json" ||
		rec.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("GET: %d %s %v\nwant %s", rec.Code, body, rec.Header(), want)
	}
	for method, status := range map[string]int{"HEAD": 200, "OPTIONS": 204, "POST": 405} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, "/", nil))
		if rec.Code != status || (method != "POST" && rec.Body.Len() != 0) {
			t.Errorf("%s: %d %q, want %d", method, rec.Code, rec.Body, status)
		}
	}
	if _, err := oauth.MetadataHandler(oauth.ResourceMetadata{Resource: "mcp"}); err == nil {
		t.Error("MetadataHandler accepted a relative resource")
	}
}
