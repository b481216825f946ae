package streamable_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// In a synctest bubble (HTTP in memory): Shutdown waits for the call in
// flight, whose answer is written to the session's stream before it
// returns; meanwhile and after, a new session is refused 503 as
// Handler's initialize is.
func TestSSEHandler_shutdownAnswersTheCallInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := bubbleServer(t, nil)
		started, release := make(chan struct{}), make(chan struct{})
		must(t, srv.AddTool(&mcp.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(started)
			<-release
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "finished"}}}, nil
		}))
		h := streamable.NewSSEHandler(srv, nil)
		url, client := serveInMemory(t, h)
		t.Cleanup(func() { h.Close() }) // before the server closes
		raw := func(u string) *rawHTTP {
			p := newRawHTTP(t, u)
			p.client.Transport = client.Transport
			return p
		}

		get := raw(url+"sse").do(http.MethodGet, "")
		defer get.Body.Close()
		r := streamable.NewSSEReader(get.Body, 1<<20)
		ep := nextEvent(t, r)
		post := raw(strings.TrimSuffix(url, "/") + ep.data)
		send := post.accepted
		send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"old","version":"0"}}}`)
		nextEvent(t, r)
		send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}`)
		<-started

		done := make(chan error, 1)
		go func() { done <- h.Shutdown(context.Background()) }()
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("Shutdown returned (%v) with a call in flight", err)
		default:
		}
		refused := func(when string) {
			t.Helper()
			resp := raw(url+"sse").do(http.MethodGet, "")
			if resp.StatusCode != http.StatusServiceUnavailable {
				t.Fatalf("a new session %s: %d", when, resp.StatusCode)
			}
			if e := errorBody(t, resp); e.Code != codec.CodeOverloaded {
				t.Fatalf("a new session %s: %+v", when, e)
			}
		}
		refused("during Shutdown")

		close(release)
		if ev := nextEvent(t, r); ev.data != `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"finished"}]}}` {
			t.Fatalf("the call in flight was answered %+v", ev)
		}
		must(t, <-done)
		if _, _, _, err := r.Next(); err != io.EOF {
			t.Fatalf("the stream after Shutdown: %v, want io.EOF", err)
		}
		if n := len(srv.Sessions()); n != 0 {
			t.Fatalf("%d sessions after Shutdown", n)
		}
		refused("after Shutdown")
	})
}
