package streamable_test

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"testing"

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
