package middleware_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"golang.org/x/time/rate"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/middleware"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// sessionContext returns a handler's context of a session bound with peer
// (header, if set, in it), as middleware sees it. It is kept past its
// call, which is fine for reading values (the session and the header):
// only its cancellation has ended.
func sessionContext(tb testing.TB, peer conn.Peer, header http.Header) context.Context {
	tb.Helper()
	var ctx context.Context
	r := router.New()
	r.Register("capture", router.HandlerFunc(func(c context.Context, _ *router.Request) (any, error) {
		ctx = c
		return nil, nil
	}), &router.MethodOptions{Inline: true})
	parent := context.Background()
	if header != nil {
		parent = transport.WithHeader(parent, header)
	}
	c := conn.NewStream(nil, &conn.Options{Router: r, Peer: peer, Context: parent})
	tb.Cleanup(func() { c.Close() })
	c.ServeBody(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"capture"}`), func([]byte) {})
	if ctx == nil {
		tb.Fatal("no context captured")
	}
	return ctx
}

// benchCase is one middleware over one kind of call.
type benchCase struct {
	name string
	mw   router.Middleware
	ctx  context.Context
	req  *router.Request
}

func benchCases(tb testing.TB) []benchCase {
	stream := sessionContext(tb, conn.Peer{Transport: "tcp", Addr: "127.0.0.1:1"}, nil)
	httpCtx := sessionContext(tb, conn.Peer{Transport: "http", Addr: "127.0.0.1:1"}, http.Header{
		"Authorization": {"Bearer " + token},
		"Traceparent":   {tp},
		"Tracestate":    {"rojo=1"},
	})
	plainReq := &router.Request{Method: "echo", ID: []byte("1"), Params: []byte(`{"message":"hello","n":[1,2,3]}`)}
	metaReq := &router.Request{Method: "echo", ID: []byte("1"), Params: []byte(`{"message":"hello","_meta":{"authorization":"Bearer ` + token + `","traceparent":"` + tp + `"}}`)}
	quiet := slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	loud := slog.New(slog.NewJSONHandler(io.Discard, nil))
	auth := middleware.Auth(middleware.BearerToken(token), nil)
	limit := middleware.RateLimit(rate.Inf/2, 1<<30, nil) // never refuses: the cost of an allowed call
	trace := middleware.TraceContext(nil)
	return []benchCase{
		{"none", nil, stream, plainReq},
		{"logging/disabled", middleware.Logging(quiet, nil), stream, plainReq},
		{"logging/enabled", middleware.Logging(loud, nil), stream, plainReq},
		{"auth/header", auth, httpCtx, plainReq},
		{"auth/meta", auth, stream, metaReq},
		{"ratelimit/session", limit, stream, plainReq},
		{"ratelimit/ip", limit, httpCtx, plainReq},
		{"trace/absent", trace, stream, plainReq},
		{"trace/header", trace, httpCtx, plainReq},
		{"trace/meta", trace, stream, metaReq},
		{"chain/header", middleware.Chain(trace, middleware.Logging(quiet, nil), limit, auth), httpCtx, plainReq},
	}
}

// The cost per call of each middleware in front of a handler that does
// nothing; "none" is the handler alone.
func BenchmarkMiddleware(b *testing.B) {
	for _, bc := range benchCases(b) {
		b.Run(bc.name, func(b *testing.B) {
			var h router.Handler = router.HandlerFunc(func(context.Context, *router.Request) (any, error) { return true, nil })
			if bc.mw != nil {
				h = bc.mw(h)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.req.Params)))
			for b.Loop() {
				if res, err := h.Handle(bc.ctx, bc.req); res != true || err != nil {
					b.Fatalf("%v %v", res, err)
				}
			}
		})
	}
}
