package mcp_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/pool"
)

// Many clients call tools on a pooled server while tools come and go: the
// race detector watches the registry, the sessions and list_changed.
func TestServer_concurrentCallsWhileToolsChange(t *testing.T) {
	p, err := pool.New(&pool.Options{Workers: 8})
	if err != nil {
		t.Fatal(err)
	}
	// Closed after the sessions (cleanups run last first): a session of
	// 2026-07-28 holds a worker with its subscriptions/listen stream
	// until it ends.
	t.Cleanup(func() { p.Close(context.Background()) })
	srv := mcp.NewServer(nil, &mcp.ServerOptions{
		PageSize:     3,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolsCapability{ListChanged: true}},
		Conn:         &conn.Options{Pool: p},
	})
	must(t, addEcho(srv))
	c := mcp.NewClient(nil, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ClientSession) {}})
	sessions := make([]*mcp.ClientSession, 4)
	for i := range sessions {
		sessions[i] = connect(t, srv, c)
	}

	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		noop := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			name := fmt.Sprintf("dyn%d", i%5)
			if i%2 == 0 {
				if err := srv.AddTool(&mcp.Tool{Name: name}, noop); err != nil {
					t.Error(err)
					return
				}
			} else {
				srv.RemoveTools(name)
			}
		}
	}()
	var callers sync.WaitGroup
	for i, cs := range sessions {
		callers.Add(1)
		go func() {
			defer callers.Done()
			ctx := context.Background()
			for j := range 50 {
				msg := fmt.Sprintf("%d-%d", i, j)
				res, err := cs.CallTool(ctx, "echo", map[string]string{"message": msg})
				if err != nil || res.Content[0].(*mcp.TextContent).Text != msg {
					t.Errorf("call %s: %+v, %v", msg, res, err)
					return
				}
				for _, err := range cs.Tools(ctx) {
					if err != nil {
						t.Errorf("list: %v", err)
						return
					}
				}
			}
		}()
	}
	callers.Wait()
	close(stop)
	wg.Wait()
}

// 500 tools at once each wait on the client (elicitation), which answers
// none until all 500 have asked: with the server's default options no
// handler waits for another to finish.
func TestServer_manyHandlersWaitingOnTheClient(t *testing.T) {
	const n = 500
	srv := mcp.NewServer(nil, nil)
	must(t, srv.AddTool(&mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "ok?"})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: r.Action}}}, nil
	}))
	var asked atomic.Int32
	all := make(chan struct{})
	c := mcp.NewClient(nil, &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		if asked.Add(1) == n {
			close(all)
		}
		select {
		case <-all:
			return &mcp.ElicitResult{Action: "accept"}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}})
	cs := connect(t, srv, c)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			res, err := cs.CallTool(ctx, "ask", nil)
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "accept" {
				t.Errorf("call %d: %+v, %v", i, res, err)
			}
		})
	}
	wg.Wait()
}
