package transport_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/transport"
)

// BenchmarkHTTPHandler_echo serves one small POST through HTTPHandler
// with a read and a write timeout set (as the demo server's /rpc has
// them), HTTP parsing left out: the handler's own cost per request.
func BenchmarkHTTPHandler_echo(b *testing.B) {
	const body = `{"jsonrpc":"2.0","id":1,"method":"echo","params":["hello"]}`
	h := shutdownAtEnd(b, transport.NewHTTPHandler(&conn.Options{Router: rpcRouter(nil)}, &transport.HTTPOptions{
		ReadTimeout: transport.DefaultHTTPReadTimeout, WriteTimeout: transport.DefaultHTTPWriteTimeout,
	}))
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		postEcho(b, h)
	}
}

// postEcho POSTs h one echo of "hello" on /rpc and checks the answer.
func postEcho(tb testing.TB, h http.Handler) {
	const body = `{"jsonrpc":"2.0","id":1,"method":"echo","params":["hello"]}`
	const want = `{"jsonrpc":"2.0","id":1,"result":["hello"]}`
	r := httptest.NewRequest(http.MethodPost, "/rpc", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK || w.Body.String() != want {
		tb.Fatalf("%d %s", w.Code, w.Body)
	}
}
