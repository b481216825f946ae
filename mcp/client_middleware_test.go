package mcp_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/router"
)

// recorder is middleware that records the methods it sees, in order.
type recorder struct {
	mu      sync.Mutex
	methods []string
}

func (r *recorder) mw(next router.Handler) router.Handler {
	return router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		r.mu.Lock()
		r.methods = append(r.methods, req.Method)
		r.mu.Unlock()
		return next.Handle(ctx, req)
	})
}

func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.methods, " ")
}

// The client's middleware sees what it sends (Client.UseSending: the
// handshake, calls) and what it receives (Client.Use: the server's
// sampling request); a sending middleware may answer in the server's
// place.
func TestClient_middlewareOnBothSides(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	must(t, srv.AddTool(&mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 5,
			Messages: []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}}})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: r.Model}}}, nil
	}))
	c := mcp.NewClient(nil, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", Content: []mcp.Content{&mcp.TextContent{Text: "x"}}}, nil
		},
	})
	var in, out recorder
	c.Use(in.mw)
	c.UseSending(out.mw, func(next router.Handler) router.Handler {
		return router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
			if req.Method == "prompts/list" { // answered here, not sent
				return &mcp.ListPromptsResult{Prompts: []*mcp.Prompt{{Name: "local"}}}, nil
			}
			return next.Handle(ctx, req)
		})
	})
	cs := connect(t, srv, c)
	r, err := cs.CallTool(ctx10(t), "ask", nil)
	if err != nil || len(r.Content) != 1 || r.Content[0].(*mcp.TextContent).Text != "m" {
		t.Fatalf("CallTool: %v %+v", err, r)
	}
	p, err := cs.ListPrompts(ctx10(t), nil)
	if err != nil || len(p.Prompts) != 1 || p.Prompts[0].Name != "local" {
		t.Fatalf("ListPrompts: %v %+v", err, p)
	}
	if got := out.String(); got != "server/discover tools/call prompts/list" { // the default version has no initialize
		t.Errorf("sending middleware saw %q", got)
	}
	if got := in.String(); got != "sampling/createMessage" {
		t.Errorf("receiving middleware saw %q", got)
	}
	// An error of the server comes back through the middleware as it is.
	if _, err := cs.CallTool(ctx10(t), "nope", nil); !isCode(err, codec.CodeInvalidParams) {
		t.Errorf("unknown tool: %v, want -32602", err)
	}
}
