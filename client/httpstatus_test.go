package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/transport"
)

// A client calling over HTTP at a wrong URL gets the server's 404 as a
// *transport.HTTPStatusError naming the status and the URL, not a -32603
// nor a transport failure; an idempotent call is not retried for it, and
// the session goes on.
func TestClient_wrongHTTPURLIsAnHTTPStatusError(t *testing.T) {
	posts := 0
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts++ // one goroutine at a time: the calls below are sequential
		http.NotFound(w, r)
	}))
	defer hs.Close()
	url := hs.URL + "/wrong"
	dial := func(context.Context) (conn.Stream, error) { return transport.NewHTTPStream(url, nil), nil }
	c := client.New(dial, &client.Options{Idempotent: []string{"echo"}})
	defer c.Close()
	for i := range 2 {
		err := c.Call(context.Background(), "echo", []int{1}, nil)
		se, ok := errors.AsType[*transport.HTTPStatusError](err)
		if !ok || se.StatusCode != http.StatusNotFound || se.Status != "404 Not Found" || se.URL != url {
			t.Fatalf("call %d: got %#v (%v), want a *transport.HTTPStatusError 404 from %s", i, err, err, url)
		}
		if _, isRPC := errors.AsType[*codec.Error](err); isRPC {
			t.Fatalf("%v is also a JSON-RPC error", err)
		}
		if _, isTransport := errors.AsType[*client.TransportError](err); isTransport {
			t.Fatalf("%v is a transport failure", err)
		}
		if !strings.Contains(err.Error(), "404 Not Found") || !strings.Contains(err.Error(), url) {
			t.Fatalf("Error() = %q", err)
		}
	}
	if posts != 2 {
		t.Fatalf("%d POSTs for 2 calls: retried", posts)
	}
}
