package streamable_test

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
)

// A stateless request whose handler needs nothing it sends to reach the
// client before the answer runs on the goroutine serving its POST
// (conn.BodySink.Here); one that asked for progress or log messages runs
// on the pool, so that they stream while it runs.
func TestHTTPStateless_quietRequestRunsOnItsPOST(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		srv := echoServer(t)
		must(t, srv.AddTool(&mcp.Tool{Name: "where"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			buf := make([]byte, 64<<10)
			here := strings.Contains(string(buf[:runtime.Stack(buf, false)]), "streamable.(*Handler).serveStateless")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.FormatBool(here)}}}, nil
		}))
		ts, _ := serveHTTP(t, srv, nil)
		p := newRawHTTP(t, ts.URL)
		for _, tc := range []struct {
			name, meta string
			here       bool
		}{
			{"quiet", meta26, true},
			{"progress", strings.Replace(meta26, `{`, `{"progressToken":7,`, 1), false},
			{"log level", strings.Replace(meta26, `{`, `{"io.modelcontextprotocol/logLevel":"info",`, 1), false},
		} {
			body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"where",` + tc.meta + `}}`
			st, a := readAnswer(t, p.post(body, headers26("tools/call", "where")...))
			if want := `"text":"` + strconv.FormatBool(tc.here) + `"`; st != 200 || a.Error != nil || !strings.Contains(string(a.Result), want) {
				t.Errorf("%s: %d %s %v, want %s", tc.name, st, a.Result, a.Error, want)
			}
		}
	})
}

// What a handler running on its POST's goroutine sends all the same
// reaches the client, before the answer, on the event stream the answer
// becomes.
func TestHTTPStateless_quietRequestsMessagesComeWithItsAnswer(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		srv := echoServer(t)
		must(t, srv.AddTool(&mcp.Tool{Name: "chatty"}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for i := range 3 {
				if err := conn.FromContext(ctx).Notify(ctx, "notifications/chatter", map[string]int{"n": i}); err != nil {
					return nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		}))
		ts, _ := serveHTTP(t, srv, nil)
		p := newRawHTTP(t, ts.URL)
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"chatty",` + meta26 + `}}`
		evs := readEvents(t, p.post(body, headers26("tools/call", "chatty")...))
		if len(evs) != 4 {
			t.Fatalf("%d events, want 3 notifications and the answer: %+v", len(evs), evs)
		}
		for i, ev := range evs[:3] {
			if want := `"params":{"n":` + strconv.Itoa(i) + `}`; !strings.Contains(ev.data, want) {
				t.Errorf("event %d: %s, want %s", i, ev.data, want)
			}
		}
		if !strings.Contains(evs[3].data, `"text":"done"`) {
			t.Errorf("last event %s, want the answer", evs[3].data)
		}
	})
}
