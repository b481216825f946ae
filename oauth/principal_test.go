package oauth_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/oauth"
)

func TestRequireScopes_namesTheMissingScope(t *testing.T) {
	p := &oauth.Principal{Issuer: "https://as.test", Subject: "alice", Scopes: []string{"read", "mcp"}}
	ctx := oauth.ContextWithPrincipal(context.Background(), p)
	if err := oauth.RequireScopes(ctx, "mcp", "read"); err != nil {
		t.Errorf("granted scopes: %v", err)
	}
	err := oauth.RequireScopes(ctx, "read", "write", "admin", "write")
	var se *oauth.ScopeError
	if !errors.As(err, &se) || len(se.Missing) != 2 || se.Missing[0] != "write" || se.Missing[1] != "admin" {
		t.Fatalf("RequireScopes = %v, want the missing write and admin", err)
	}
	e, ok := errors.AsType[*codec.Error](err)
	if !ok || e.Code != codec.CodeForbidden || e.Data.(map[string]string)["scope"] != "write admin" {
		t.Errorf("as a JSON-RPC error: %+v", e)
	}
	if err := oauth.RequireScopes(context.Background(), "read"); !errors.Is(err, oauth.ErrNoPrincipal) {
		t.Errorf("no principal: %v", err)
	}
	if p.String() != "https://as.test alice" {
		t.Errorf("String = %q", p.String())
	}
	if s := (&oauth.Principal{Issuer: "i", ClientID: "c"}).String(); s != "i client:c" {
		t.Errorf("String without a subject = %q", s)
	}
}
