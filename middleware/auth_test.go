package middleware_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/middleware"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

const token = "s3cret-t0ken"

// onlyEcho allows every method but admin.
var onlyEcho = middleware.AuthorizerFunc(func(_ context.Context, _ any, method string) error {
	if method == "admin" {
		return errors.New("not for you")
	}
	return nil
})

func TestAuth_headerOverHTTP(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header http.Header
		body   string
		code   int
		msg    string // in the error's message
	}{
		{"no header", http.Header{}, `{"jsonrpc":"2.0","id":1,"method":"echo"}`, -32009, "credentials required"},
		{"wrong token", http.Header{"Authorization": {"Bearer nope"}}, `{"jsonrpc":"2.0","id":1,"method":"echo"}`, -32009, "invalid credentials"},
		{"other scheme", http.Header{"Authorization": {"Basic " + token}}, `{"jsonrpc":"2.0","id":1,"method":"echo"}`, -32009, "invalid credentials"},
		{"right token", http.Header{"Authorization": {"Bearer " + token}}, `{"jsonrpc":"2.0","id":1,"method":"echo"}`, 0, ""},
		{"scheme in lower case", http.Header{"Authorization": {"bearer " + token}}, `{"jsonrpc":"2.0","id":1,"method":"echo"}`, 0, ""},
		// The header wins over params: a wrong header is not rescued by _meta.
		{"header wins", http.Header{"Authorization": {"Bearer nope"}}, `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"_meta":{"authorization":"Bearer ` + token + `"}}}`, -32009, "invalid credentials"},
		// A header without Authorization leaves _meta to say.
		{"meta without the header", http.Header{"Accept": {"*/*"}}, `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"_meta":{"authorization":"Bearer ` + token + `"}}}`, 0, ""},
		{"forbidden", http.Header{"Authorization": {"Bearer " + token}}, `{"jsonrpc":"2.0","id":1,"method":"admin"}`, -32010, "admin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, conn.Peer{Transport: "http", Addr: "127.0.0.1:5000"}, tc.header,
				middleware.Auth(middleware.BearerToken(token), onlyEcho))
			r := decode(t, s.call(tc.body))
			if r.code() != tc.code {
				t.Fatalf("code %d, want %d: %+v", r.code(), tc.code, r.Error)
			}
			if tc.code != 0 && !strings.Contains(r.Error.Message, tc.msg) {
				t.Errorf("message %q does not say %q", r.Error.Message, tc.msg)
			}
			if tc.code == -32010 && string(r.Error.Data) != `{"method":"admin"}` {
				t.Errorf("data %s, want the method", r.Error.Data)
			}
			if string(r.ID) != "1" {
				t.Errorf("id %s", r.ID)
			}
		})
	}
}

func TestAuth_metaOnStreams(t *testing.T) {
	for _, tc := range []struct {
		name, params string
		code         int
	}{
		{"no params", ``, -32009},
		{"no _meta", `,"params":{"a":1}`, -32009},
		{"array params", `,"params":[1,2]`, -32009},
		{"right token", `,"params":{"a":[1,{"_meta":0}],"_meta":{"progressToken":1,"authorization":"Bearer ` + token + `"}}`, 0},
		{"escaped names", `,"params":{"\u005fmeta":{"auth\u006frization":"Bearer \u0073` + token[1:] + `"}}`, 0},
		{"wrong token", `,"params":{"_meta":{"authorization":"Bearer x` + token + `"}}`, -32009},
		{"not a string", `,"params":{"_meta":{"authorization":["Bearer ` + token + `"]}}`, -32009},
		{"empty", `,"params":{"_meta":{"authorization":""}}`, -32009},
		{"the last of two counts", `,"params":{"_meta":{"authorization":"Bearer ` + token + `","authorization":"Bearer no"}}`, -32009},
		{"nested too deep", `,"params":{"x":{"_meta":{"authorization":"Bearer ` + token + `"}}}`, -32009},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, conn.Peer{Transport: "tcp", Addr: "127.0.0.1:5000"}, nil,
				middleware.Auth(middleware.BearerToken(token), nil))
			r := decode(t, s.call(`{"jsonrpc":"2.0","id":"x","method":"echo"`+tc.params+`}`))
			if r.code() != tc.code {
				t.Fatalf("code %d, want %d: %+v", r.code(), tc.code, r.Error)
			}
		})
	}
}

func TestAuth_refusedNotificationNeverReachesTheHandler(t *testing.T) {
	ran := false
	h := middleware.Auth(middleware.BearerToken(token), nil)(router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		ran = true
		return nil, nil
	}))
	if _, err := h.Handle(context.Background(), &router.Request{Method: "note"}); !errors.Is(err, &codec.Error{Code: codec.CodeUnauthorized}) {
		t.Errorf("err %v, want -32009", err)
	}
	if ran {
		t.Error("the handler ran")
	}
}

func TestAuth_putsThePrincipalInTheContext(t *testing.T) {
	authn := middleware.AuthenticatorFunc(func(_ context.Context, cred string) (any, error) {
		return "user:" + strings.TrimPrefix(cred, "Bearer "), nil
	})
	var sawAuthz any
	authz := middleware.AuthorizerFunc(func(_ context.Context, p any, _ string) error {
		sawAuthz = p
		return nil
	})
	h := middleware.Auth(authn, authz)(router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
		p, ok := middleware.PrincipalFromContext(ctx)
		if !ok {
			return nil, errors.New("no principal")
		}
		return p, nil
	}))
	ctx := transport.WithHeader(context.Background(), http.Header{"Authorization": {"Bearer ann"}})
	got, err := h.Handle(ctx, &router.Request{Method: "m", ID: []byte("1")})
	if err != nil || got != "user:ann" || sawAuthz != "user:ann" {
		t.Errorf("principal %v (authorizer saw %v), err %v", got, sawAuthz, err)
	}
	if _, ok := middleware.PrincipalFromContext(context.Background()); ok {
		t.Error("a principal in a bare context")
	}
}

func TestAuth_errorsOfTheHooks(t *testing.T) {
	custom := codec.NewError(codec.CodeUnauthorized, "token expired").WithData("renew at /login")
	for _, tc := range []struct {
		name  string
		authn middleware.AuthenticatorFunc
		authz middleware.AuthorizerFunc
		want  *codec.Error
	}{
		{"a codec error goes as it is", func(context.Context, string) (any, error) { return nil, custom }, nil, custom},
		{"a wrapped sentinel", func(context.Context, string) (any, error) {
			return nil, errors.Join(errors.New("db"), middleware.ErrNoCredentials)
		}, nil, codec.NewError(codec.CodeUnauthorized, "Unauthorized: credentials required (an Authorization header, or params._meta.authorization on stream transports)")},
		// A plain error's text (a database's, say) stays private.
		{"a plain error", func(context.Context, string) (any, error) { return nil, errors.New("db down at 10.0.0.7") }, nil,
			codec.NewError(codec.CodeUnauthorized, "Unauthorized: invalid credentials")},
		{"an authorizer's codec error", nil, func(context.Context, any, string) error {
			return codec.NewError(codec.CodeForbidden, "read-only token")
		}, codec.NewError(codec.CodeForbidden, "read-only token")},
		{"an authorizer's plain error", nil, func(context.Context, any, string) error { return errors.New("no") },
			codec.NewError(codec.CodeForbidden, "Forbidden: the caller may not call m").WithData(map[string]string{"method": "m"})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var authn middleware.Authenticator
			var authz middleware.Authorizer
			if tc.authn != nil {
				authn = tc.authn
			}
			if tc.authz != nil {
				authz = tc.authz
			}
			h := middleware.Auth(authn, authz)(router.HandlerFunc(echo))
			_, err := h.Handle(context.Background(), &router.Request{Method: "m", ID: []byte("1")})
			e, ok := errors.AsType[*codec.Error](err)
			if !ok || e.Code != tc.want.Code || e.Message != tc.want.Message {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if want, ok := tc.want.Data.(map[string]string); ok {
				if got, _ := e.Data.(map[string]string); got["method"] != want["method"] {
					t.Errorf("data %v, want %v", e.Data, want)
				}
			}
		})
	}
}

// A handler the tests can compare: Auth and the others return it as it
// is when they have nothing to do.
type plain struct{}

func (*plain) Handle(context.Context, *router.Request) (any, error) { return nil, nil }

func TestAuth_withNeitherHookReturnsTheHandler(t *testing.T) {
	h := &plain{}
	if got := middleware.Auth(nil, nil)(h); got != router.Handler(h) {
		t.Errorf("Auth(nil, nil) wrapped the handler: %T", got)
	}
}
