package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
)

func mcpwireServer(tb testing.TB) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	err := mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Message}}}, nil, nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return srv
}

func mcpwireCaller(cs *mcp.ClientSession) caller {
	return func(ctx context.Context, msg string) (string, error) {
		res, err := cs.CallTool(ctx, "echo", echoArgs{Message: msg})
		if err != nil {
			return "", err
		}
		if res.IsError || len(res.Content) != 1 {
			return "", fmt.Errorf("unexpected result %+v", res)
		}
		t, ok := res.Content[0].(*mcp.TextContent)
		if !ok {
			return "", fmt.Errorf("content %T, want text", res.Content[0])
		}
		return t.Text, nil
	}
}

// mcpwireMem connects over conn.Pipe, which hands whole messages across
// (no framing).
func mcpwireMem(tb testing.TB) (caller, func()) {
	srv := mcpwireServer(tb)
	a, b := conn.Pipe()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, conn.NewMessageStream(a, nil))
	if err != nil {
		tb.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "1"}, nil).Connect(ctx, conn.NewMessageStream(b, nil))
	if err != nil {
		tb.Fatal(err)
	}
	return mcpwireCaller(cs), func() {
		cs.Close()
		ss.Close()
		ss.Wait()
	}
}

// mcpwireStdio serves with Server.Run and connects with
// Client.ConnectIO, newline-delimited, over two os.Pipe pairs.
func mcpwireStdio(tb testing.TB) (caller, func()) {
	srv := mcpwireServer(tb)
	sr, cw, cr, sw := osPipes(tb)
	ran := make(chan error, 1)
	go func() { ran <- srv.Run(context.Background(), &pipeRWC{sr, sw}) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "1"}, nil).ConnectIO(context.Background(), &pipeRWC{cr, cw})
	if err != nil {
		tb.Fatal(err)
	}
	return mcpwireCaller(cs), func() {
		cs.Close()
		if err := <-ran; err != nil && !errors.Is(err, os.ErrClosed) {
			tb.Logf("mcpwire Run: %v", err)
		}
	}
}
