package mcp_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/mcpwire/mcpwire/mcp"
)

// ServerSession.Shutdown lets a call in flight finish and be answered,
// then ends the session, which the server forgets.
func TestServerSession_shutdownLetsACallFinish(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := mcp.NewServer(nil, nil)
		started, release := make(chan struct{}), make(chan struct{})
		must(t, mcp.AddTool(srv, &mcp.Tool{Name: "wait"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			close(started)
			<-release
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		}))
		cl := newClient(t, srv)
		cl.initialize(mcp.LatestVersion)
		if n := len(srv.Sessions()); n != 1 {
			t.Fatalf("Sessions: %d, want 1", n)
		}
		answered := make(chan error, 1)
		go func() {
			_, err := cl.call("tools/call", map[string]any{"name": "wait", "arguments": map[string]any{}})
			answered <- err
		}()
		<-started
		shut := make(chan error, 1)
		go func() { shut <- cl.ss.Shutdown(context.Background()) }()
		synctest.Wait() // Shutdown has begun, and waits for the call
		select {
		case <-cl.ss.Done():
			t.Fatal("the session ended with a call in flight")
		default:
		}
		close(release)
		if err := <-answered; err != nil {
			t.Errorf("the call in flight: %v", err)
		}
		if err := <-shut; err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := cl.ss.Wait(); err != nil {
			t.Errorf("the session ended with %v", err)
		}
		if n := len(srv.Sessions()); n != 0 {
			t.Errorf("Sessions after the end: %d, want 0", n)
		}
	})
}
