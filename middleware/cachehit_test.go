package middleware_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpwire/mcpwire/cache"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/middleware"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// cachedRouter serves "list", cached in c, under mw; runs counts the
// handler's runs.
func cachedRouter(t *testing.T, c *cache.Cache, runs *atomic.Int32, mw ...router.Middleware) *router.Router {
	t.Helper()
	r := router.New()
	r.Use(mw...)
	if err := r.Register("list", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		runs.Add(1)
		return []string{"a", "b"}, nil
	}), &router.MethodOptions{Cache: c.Method(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	return r
}

// bodySession serves r through ServeBody with header in every handler's
// context, as the HTTP transport does.
func bodySession(t *testing.T, r *router.Router, header http.Header) *session {
	t.Helper()
	ctx := transport.WithHeader(context.Background(), header)
	c := conn.NewStream(nil, &conn.Options{Router: r, Peer: conn.Peer{Transport: "http", Addr: "127.0.0.1:5000"}, Context: ctx})
	t.Cleanup(func() { c.Close() })
	return &session{t: t, c: c}
}

const callList = `{"jsonrpc":"2.0","id":1,"method":"list","params":{"page":1}}`

// A cached answer is no way around Auth: a caller without credentials is
// refused even when the answer is in the cache. Before, the cache answered it before Auth ran.
func TestAuth_appliesToCacheHits(t *testing.T) {
	c := cache.New(nil)
	var runs atomic.Int32
	r := cachedRouter(t, c, &runs, middleware.Auth(middleware.BearerToken(token), onlyEcho))
	authed := bodySession(t, r, http.Header{"Authorization": {"Bearer " + token}})
	if got := decode(t, authed.call(callList)); got.code() != 0 || string(got.Result) != `["a","b"]` {
		t.Fatalf("authenticated miss: %s %+v", got.Result, got.Error)
	}
	for _, tc := range []struct {
		name   string
		header http.Header
		code   int
	}{
		{"no credentials", http.Header{}, -32009},
		{"wrong token", http.Header{"Authorization": {"Bearer nope"}}, -32009},
		{"right token", http.Header{"Authorization": {"Bearer " + token}}, 0},
	} {
		hits := c.Hits()
		got := decode(t, bodySession(t, r, tc.header).call(callList))
		if got.code() != tc.code {
			t.Errorf("%s: code %d (%s), want %d", tc.name, got.code(), got.Result, tc.code)
		}
		if c.Hits() != hits+1 {
			t.Errorf("%s: the cache was not asked (hits %d → %d): the test proves nothing", tc.name, hits, c.Hits())
		}
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("handler ran %d times, want 1", n)
	}
}

// A rate-limited peer is refused -32011 on a hit as on a miss.
func TestRateLimit_appliesToCacheHits(t *testing.T) {
	c := cache.New(nil)
	var runs atomic.Int32
	r := cachedRouter(t, c, &runs, middleware.RateLimit(rate.Every(time.Hour), 2, nil))
	s := bodySession(t, r, http.Header{})
	for i := range 2 { // a miss, then a hit: the burst
		if got := decode(t, s.call(callList)); got.code() != 0 {
			t.Fatalf("call %d within the burst: %+v", i, got.Error)
		}
	}
	hits := c.Hits()
	if ms := retryAfter(t, s.call(callList)); ms <= 0 {
		t.Errorf("retryAfterMs %d", ms)
	}
	if c.Hits() != hits+1 {
		t.Errorf("the third call was no hit (hits %d → %d): the test proves nothing", hits, c.Hits())
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("handler ran %d times, want 1", n)
	}
}
