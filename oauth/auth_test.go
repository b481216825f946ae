package oauth_test

import (
	"context"
	"testing"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/middleware"
	"github.com/mcpwire/mcpwire/oauth"
	"github.com/mcpwire/mcpwire/router"
)

// On a stream transport the token rides in params._meta.authorization:
// middleware.Auth with a Bearer authenticates each call, and a handler
// finds the Principal and checks a scope of its own with RequireScopes,
// whose refusal reaches the peer as -32010 naming the missing scope.
func TestBearer_throughMiddlewareAuth(t *testing.T) {
	r := router.New()
	r.Use(middleware.Auth(oauth.NewBearer(fakeVerifier, &oauth.BearerOptions{Scopes: []string{"mcp"}}), nil))
	err := r.Register("write", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
		if err := oauth.RequireScopes(ctx, "write"); err != nil {
			return nil, err
		}
		p, _ := oauth.FromContext(ctx)
		return p.Subject, nil
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := conn.NewStream(nil, &conn.Options{Router: r})
	defer c.Close()
	for _, tc := range []struct{ token, want string }{
		{"good-mcp+write", `{"jsonrpc":"2.0","id":1,"result":"alice"}`},
		{"good-mcp", `{"jsonrpc":"2.0","id":1,"error":{"code":-32010,"message":"Forbidden: the access token lacks the scope write","data":{"scope":"write"}}}`},
		{"good-write", `{"jsonrpc":"2.0","id":1,"error":{"code":-32010,"message":"Forbidden: the access token lacks the scope mcp","data":{"scope":"mcp"}}}`},
		{"expired-secret", `{"jsonrpc":"2.0","id":1,"error":{"code":-32009,"message":"Unauthorized: the access token is invalid: expired"}}`},
	} {
		body := `{"jsonrpc":"2.0","id":1,"method":"write","params":{"_meta":{"authorization":"Bearer ` + tc.token + `"}}}`
		var got string
		if err := c.ServeBody(context.Background(), []byte(body), func(msg []byte) { got = string(msg) }); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.token, got, tc.want)
		}
	}
}
