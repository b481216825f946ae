package middleware_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/middleware"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// The four middleware in their documented order, on a session that
// answers whole bodies (as a stream transport would answer its messages):
// a call without the token is refused (-32009) and logged, one with it in
// params._meta passes, and the third in a row is past the rate limit
// (-32011; its data says when to retry).
func Example() {
	quiet := func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey || a.Key == "duration" {
			return slog.Attr{} // they change from run to run
		}
		return a
	}
	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: quiet}))

	r := router.New()
	r.Use(middleware.Chain(
		middleware.TraceContext(nil),
		middleware.Logging(log, nil),
		middleware.RateLimit(1, 2, nil), // 1 call per second per peer, bursts of 2
		middleware.Auth(middleware.BearerToken("s3cret"), nil),
	))
	r.Register("whoami", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
		p, _ := middleware.PrincipalFromContext(ctx)
		return p, nil
	}), nil)

	s := conn.NewStream(nil, &conn.Options{Router: r, Peer: conn.Peer{Transport: "stdio"}})
	defer s.Close()
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"whoami"}`,
		`{"jsonrpc":"2.0","id":2,"method":"whoami","params":{"_meta":{"authorization":"Bearer s3cret"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"whoami","params":{"_meta":{"authorization":"Bearer s3cret"}}}`,
	} {
		s.ServeBody(context.Background(), []byte(body), func(msg []byte) {
			var answer struct {
				ID     int
				Result any
				Error  *struct {
					Code    int
					Message string
					Data    struct{ RetryAfterMs int }
				}
			}
			json.Unmarshal(msg, &answer)
			switch e := answer.Error; {
			case e == nil:
				fmt.Printf("%d: result %v\n", answer.ID, answer.Result)
			case e.Code == -32011:
				retry := time.Duration(e.Data.RetryAfterMs) * time.Millisecond
				fmt.Printf("%d: error %d, retry in %v\n", answer.ID, e.Code, retry.Round(time.Second))
			default:
				fmt.Printf("%d: error %d\n", answer.ID, e.Code)
			}
		})
	}
	// Output:
	// level=INFO msg=rpc method=whoami id=1 code=-32009 error="Unauthorized: credentials required (an Authorization header, or params._meta.authorization on stream transports)"
	// 1: error -32009
	// level=INFO msg=rpc method=whoami id=2 code=0
	// 2: result bearer
	// level=INFO msg=rpc method=whoami id=3 code=-32011 error="Too many requests: rate limit exceeded"
	// 3: error -32011, retry in 1s
}

// TraceContext hands a call's traceparent and tracestate to a function of
// the user's: this is where OpenTelemetry's propagator would extract the
// remote span context (see TraceContext's documentation).
func ExampleTraceContext() {
	extract := func(ctx context.Context, traceparent, tracestate string) context.Context {
		fmt.Printf("extract: %s %q\n", traceparent, tracestate)
		return ctx
	}
	h := middleware.TraceContext(extract)(router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
		parent, _ := middleware.TraceparentFromContext(ctx)
		fmt.Println("handler:", parent)
		return nil, nil
	}))

	// Over HTTP or WebSocket, from the header…
	ctx := transport.WithHeader(context.Background(), http.Header{
		"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
		"Tracestate":  {"rojo=00f067aa0ba902b7"},
	})
	h.Handle(ctx, &router.Request{Method: "m", ID: []byte("1")})
	// …and on stream transports from params._meta.
	h.Handle(context.Background(), &router.Request{Method: "m", ID: []byte("2"),
		Params: []byte(`{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"}}`)})
	// Output:
	// extract: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 "rojo=00f067aa0ba902b7"
	// handler: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01
	// extract: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00 ""
	// handler: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00
}
