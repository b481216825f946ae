package streamable_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// By default a call whose handler sends nothing before its result is
// answered with one JSON body, and nothing is kept for resumption; one
// whose handler logs and reports progress first is answered on an event
// stream of its own: a priming event, what the handler sent, then the
// result, each event kept.
func TestHTTP_answerIsJSONUnlessTheHandlerStreams(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		store := &countingEvents{MemoryEventStore: streamable.NewMemoryEventStore(0, 0)}
		ts, _ := serveHTTP(t, toolServer(t), &streamable.Options{EventStore: store, RetryInterval: fastRetry.RetryInterval})
		p := newRawHTTP(t, ts.URL)
		p.initialize(mcp.LatestVersion)

		resp := p.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`)
		evs := readEvents(t, resp)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" || resp.ContentLength <= 0 ||
			len(evs) != 1 || evs[0].data != `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}` {
			t.Fatalf("echo: %d %v %+v", resp.StatusCode, resp.Header, evs)
		}
		if n := store.n.Load(); n != 0 {
			t.Fatalf("a JSON answer stored %d events", n)
		}

		resp = p.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_tool_with_logging","_meta":{"progressToken":"t"}}}`)
		evs = readEvents(t, resp)
		if resp.Header.Get("Content-Type") != "text/event-stream" || len(evs) != 6 || evs[0].id == "" || evs[0].data != "" ||
			!strings.Contains(evs[1].data, `"Tool execution started"`) || !strings.Contains(evs[4].data, `"notifications/progress"`) ||
			evs[5].data != `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"logged"}]}}` {
			t.Fatalf("logging: %v %+v", resp.Header, evs)
		}
		if n := store.n.Load(); n != 5 {
			t.Fatalf("the event stream stored %d events, want its 5 messages", n)
		}
	})
}

// A handler that closes its stream before sending anything (the
// conformance suite's test_reconnection) turns the JSON answer into an
// event stream whose response ends after its priming event; the client
// resumes it with a GET and Last-Event-ID and gets the result.
func TestHTTP_closingTheStreamBeforeStreamingResumesWithLastEventID(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		srv := echoServer(t)
		release := make(chan struct{})
		must(t, srv.AddTool(&mcp.Tool{Name: "close_first"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if !req.CloseSSEStream() {
				return nil, context.Canceled // no response was ended: the test fails on the answer
			}
			<-release
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "after the close"}}}, nil
		}))
		ts, _ := serveHTTP(t, srv, fastRetry)
		p := newRawHTTP(t, ts.URL)
		p.initialize(mcp.LatestVersion)
		resp := p.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"close_first"}}`)
		evs := readEvents(t, resp)
		if resp.Header.Get("Content-Type") != "text/event-stream" || len(evs) != 1 || evs[0].id == "" || evs[0].data != "" {
			close(release)
			t.Fatalf("before the close: %v %+v", resp.Header, evs)
		}
		close(release)
		rest := readEvents(t, p.do(http.MethodGet, "", "Last-Event-ID", evs[0].id))
		if len(rest) != 1 || rest[0].data != `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"after the close"}]}}` {
			t.Fatalf("after resuming: %+v", rest)
		}
	})
}
