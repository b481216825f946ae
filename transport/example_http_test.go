package transport_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// JSON-RPC over HTTP POST at /rpc and over WebSocket at /ws, served by one
// mux, and a client session over each. A real server would listen with
// transport.NewHTTPServer(mux, nil), which sets every timeout.
func ExampleNewHTTPHandler() {
	r := router.New()
	r.Register("greet", router.Func(func(ctx context.Context, p struct {
		Name string `json:"name"`
	}) (string, error) {
		who := transport.HeaderFromContext(ctx).Get("X-Caller") // the request's header
		return "hello " + p.Name + ", from " + who, nil
	}), nil)
	opts := &conn.Options{Router: r}
	ws := transport.NewWebSocketHandler(opts, nil)
	defer ws.Close()
	rpc := transport.NewHTTPHandler(opts, nil)
	defer rpc.Shutdown(context.Background()) // after hs.Close: its POSTs are over
	mux := http.NewServeMux()
	mux.Handle("/rpc", rpc)
	mux.Handle("/ws", ws)
	hs := httptest.NewServer(mux)
	defer hs.Close()

	ctx := context.Background()
	header := http.Header{"X-Caller": {"the example"}}
	overHTTP := conn.NewStream(transport.NewHTTPStream(hs.URL+"/rpc", &transport.HTTPClientOptions{Header: header}), nil)
	defer overHTTP.Close()
	st, err := transport.DialWebSocket(ctx, "ws"+strings.TrimPrefix(hs.URL, "http")+"/ws", &transport.WebSocketOptions{Header: header})
	if err != nil {
		log.Fatal(err)
	}
	overWS := conn.NewStream(st, nil)
	defer overWS.Close()

	for _, c := range []*conn.Conn{overHTTP, overWS} {
		var s string
		if err := c.Call(ctx, "greet", map[string]string{"name": "Ada"}, &s); err != nil {
			log.Fatal(err)
		}
		fmt.Println(s)
	}
	// Output:
	// hello Ada, from the example
	// hello Ada, from the example
}
