package bench

import (
	"context"
	"fmt"
	"testing"

	mg "github.com/mark3labs/mcp-go/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwire/mcpwire/mcp"
)

// W4: MCP, the three SDKs (mcpwire, the official go-sdk, mcp-go) each with
// its own client and its own server over stdio (two os.Pipe pairs,
// newline-delimited JSON: the same bytes to frame for each), after
// initialize. The plain JSON-RPC libraries are not MCP SDKs and have no
// entry here.

// mcpImpls are W4's tools/call implementations.
var mcpImpls = []impl{
	{"mcpwire", mcpwireStdio},
	{"mcpwire-metrics", mcpwireMetricsStdio},
	{"go-sdk", gosdkStdio},
	{"mcp-go", mcpgoStdio},
}

// BenchmarkToolsCallRoundTrip is W4, one call outstanding: tools/call of
// the echo tool (one typed string argument, answered as one text block).
func BenchmarkToolsCallRoundTrip(b *testing.B) { benchImpls(b, mcpImpls, roundTrip) }

// BenchmarkToolsCallPipelined is W4 pipelined: 64 goroutines sharing the
// session, b.N calls in all, each caller with a message of its own.
func BenchmarkToolsCallPipelined(b *testing.B) { benchImpls(b, mcpImpls, pipelined) }

// listTools is how many tools tools/list answers: echo and 49 others of
// the same type.
const listTools = 50

// toolName is the name of tool i of the list, in the order every SDK
// lists them (by name): tool 0 is echo, then tool_01…tool_49.
func toolName(i int) string {
	if i == 0 {
		return "echo"
	}
	return fmt.Sprintf("tool_%02d", i)
}

// lister calls tools/list and returns the tools' names.
type lister func(ctx context.Context) ([]string, error)

// listImpls start a server with listTools tools and a client of it.
var listImpls = []struct {
	name  string
	start func(testing.TB) (lister, func())
}{
	{"mcpwire", mcpwireLister},
	{"go-sdk", gosdkLister},
	{"mcp-go", mcpgoLister},
}

// BenchmarkToolsList is W4's tools/list of 50 tools, one call at a time.
// Every answer must name the 50 tools in order.
func BenchmarkToolsList(b *testing.B) {
	for _, im := range listImpls {
		b.Run("impl="+im.name, func(b *testing.B) {
			list, stop := im.start(b)
			defer stop()
			b.ReportAllocs()
			for b.Loop() {
				if err := checkList(list); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// checkList calls list and checks the names.
func checkList(list lister) error {
	names, err := list(context.Background())
	if err != nil {
		return err
	}
	if len(names) != listTools {
		return fmt.Errorf("%d tools, want %d", len(names), listTools)
	}
	for i, n := range names {
		if n != toolName(i) {
			return fmt.Errorf("tool %d is %q, want %q", i, n, toolName(i))
		}
	}
	return nil
}

// listerOf makes a lister of a call of tools/list and the name of a
// tool of its answer.
func listerOf[R, T any](list func(context.Context) (R, error), tools func(R) []T, name func(T) string) lister {
	return func(ctx context.Context) ([]string, error) {
		res, err := list(ctx)
		if err != nil {
			return nil, err
		}
		ts := tools(res)
		names := make([]string, len(ts))
		for i, t := range ts {
			names[i] = name(t)
		}
		return names, nil
	}
}

func mcpwireLister(tb testing.TB) (lister, func()) {
	srv := mcpwireServer(tb, nil)
	for i := 1; i < listTools; i++ {
		err := mcp.AddTool(srv, &mcp.Tool{Name: toolName(i), Description: "Echoes its message."}, func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Message}}}, nil, nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	cs, stop := mcpwireStdioSession(tb, srv)
	list := func(ctx context.Context) (*mcp.ListToolsResult, error) { return cs.ListTools(ctx, nil) }
	return listerOf(list, func(r *mcp.ListToolsResult) []*mcp.Tool { return r.Tools }, func(t *mcp.Tool) string { return t.Name }), stop
}

func gosdkLister(tb testing.TB) (lister, func()) {
	srv := gosdkServer()
	for i := 1; i < listTools; i++ {
		sdk.AddTool(srv, &sdk.Tool{Name: toolName(i), Description: "Echoes its message."}, func(_ context.Context, _ *sdk.CallToolRequest, a echoArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: a.Message}}}, nil, nil
		})
	}
	cs, stop := gosdkStdioSession(tb, srv)
	list := func(ctx context.Context) (*sdk.ListToolsResult, error) { return cs.ListTools(ctx, nil) }
	return listerOf(list, func(r *sdk.ListToolsResult) []*sdk.Tool { return r.Tools }, func(t *sdk.Tool) string { return t.Name }), stop
}

func mcpgoLister(tb testing.TB) (lister, func()) {
	srv := mcpgoServer()
	for i := 1; i < listTools; i++ {
		srv.AddTool(mg.NewTool(toolName(i), mg.WithDescription("Echoes its message."), mg.WithString("message", mg.Required())), func(_ context.Context, req mg.CallToolRequest) (*mg.CallToolResult, error) {
			return mg.NewToolResultText(req.GetString("message", "")), nil
		})
	}
	c, stop := mcpgoStdioClient(tb, srv)
	mcpgoInit(tb, c)
	list := func(ctx context.Context) (*mg.ListToolsResult, error) { return c.ListTools(ctx, mg.ListToolsRequest{}) }
	return listerOf(list, func(r *mg.ListToolsResult) []mg.Tool { return r.Tools }, func(t mg.Tool) string { return t.Name }), stop
}
