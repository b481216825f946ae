package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

// TestVersions_whatTheServerSendsOfItsOwnAccord checks, for each version,
// the requests and notifications the server sends to the client: what
// the version does not define is left out, and what it cannot carry
// without a change of meaning is refused before anything is sent.
func TestVersions_whatTheServerSendsOfItsOwnAccord(t *testing.T) {
	meta := mcp.Meta{"k": "v"}
	sampling := &mcp.CreateMessageParams{MaxTokens: 5, Messages: []*mcp.SamplingMessage{
		{Role: mcp.RoleUser, Meta: meta, Content: []mcp.Content{&mcp.TextContent{Text: "t", Meta: meta}}},
		{Role: mcp.RoleUser, Content: []mcp.Content{&mcp.AudioContent{Data: []byte("au"), MIMEType: "audio/wav"}}},
	}}
	for _, tc := range []struct {
		version, sampling, progress string
	}{
		{"2025-11-25",
			`{"role":"user","content":{"type":"text","text":"t","_meta":{"k":"v"}},"_meta":{"k":"v"}}`,
			`{"progressToken":"p","progress":1,"total":2,"message":"half"}`},
		{"2025-06-18",
			`{"role":"user","content":{"type":"text","text":"t","_meta":{"k":"v"}}}`,
			`{"progressToken":"p","progress":1,"total":2,"message":"half"}`},
		{"2025-03-26",
			`{"role":"user","content":{"type":"text","text":"t"}}`,
			`{"progressToken":"p","progress":1,"total":2,"message":"half"}`},
		{"2024-11-05",
			`{"role":"user","content":{"type":"text","text":"t"}}`,
			`{"progressToken":"p","progress":1,"total":2}`},
	} {
		t.Run(tc.version, func(t *testing.T) {
			srv := mcp.NewServer(nil, nil)
			sent := make(chan json.RawMessage, 1)
			must(t, srv.AddTool(&mcp.Tool{Name: "go"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				must(t, req.Progress(ctx, 1, 2, "half"))
				if _, err := req.Session.CreateMessage(ctx, sampling); err != nil {
					return nil, err
				}
				return &mcp.CallToolResult{}, nil
			}))
			cl := newClient(t, srv)
			cl.serve("sampling/createMessage", func(_ context.Context, p json.RawMessage) (any, error) {
				sent <- append(json.RawMessage(nil), p...)
				return map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "ok"}, "model": "m"}, nil
			})
			cl.initialize(tc.version)
			cl.mustCall("tools/call", map[string]any{"name": "go", "_meta": map[string]any{"progressToken": "p"}}, nil)
			if n := cl.next(); n.method != "notifications/progress" || string(n.params) != tc.progress {
				t.Fatalf("progress %s %s, want %s", n.method, n.params, tc.progress)
			}
			var p struct {
				Messages []json.RawMessage `json:"messages"`
			}
			raw := <-sent
			must(t, json.Unmarshal(raw, &p))
			if len(p.Messages) != 2 || string(p.Messages[0]) != tc.sampling {
				t.Fatalf("sampling %s, want first message %s", raw, tc.sampling)
			}
			if audio := string(p.Messages[1]); (tc.version == "2024-11-05") != strings.Contains(audio, `"type":"text"`) {
				t.Fatalf("audio sent as %s", audio)
			}
		})
	}
}

// TestVersions_samplingRefusesWhatTheSessionCannotCarry checks that tool
// use, several blocks in a message, and tool_use content are refused
// with ErrNotSupported where the version or the client lacks them.
func TestVersions_samplingRefusesWhatTheSessionCannotCarry(t *testing.T) {
	text := func(s string) mcp.Content { return &mcp.TextContent{Text: s} }
	withTools := &mcp.CreateMessageParams{MaxTokens: 5, Tools: []*mcp.Tool{{Name: "x", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		Messages: []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{text("q")}}}}
	twoBlocks := &mcp.CreateMessageParams{MaxTokens: 5,
		Messages: []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{text("a"), text("b")}}}}
	toolUse := &mcp.CreateMessageParams{MaxTokens: 5,
		Messages: []*mcp.SamplingMessage{{Role: mcp.RoleAssistant, Content: []mcp.Content{&mcp.ToolUseContent{ID: "1", Name: "x", Input: json.RawMessage(`{}`)}}}}}
	for _, tc := range []struct {
		version string
		tools   map[string]any // the client's sampling.tools
		ok      [3]bool        // withTools, twoBlocks, toolUse sent
	}{
		{"2025-11-25", map[string]any{}, [3]bool{true, true, true}},
		{"2025-11-25", nil, [3]bool{false, true, true}},
		{"2025-06-18", map[string]any{}, [3]bool{false, false, false}},
	} {
		srv := mcp.NewServer(nil, nil)
		cl := newClient(t, srv)
		cl.serve("sampling/createMessage", func(context.Context, json.RawMessage) (any, error) {
			return map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "ok"}, "model": "m"}, nil
		})
		samplingCap := map[string]any{}
		if tc.tools != nil {
			samplingCap["tools"] = tc.tools
		}
		cl.mustCall("initialize", map[string]any{"protocolVersion": tc.version,
			"capabilities": map[string]any{"sampling": samplingCap}, "clientInfo": map[string]any{"name": "c", "version": "1"}}, nil)
		cl.notify("notifications/initialized", nil)
		for i, p := range []*mcp.CreateMessageParams{withTools, twoBlocks, toolUse} {
			_, err := cl.ss.CreateMessage(ctx10(t), p)
			if tc.ok[i] != (err == nil) || (err != nil && !errors.Is(err, mcp.ErrNotSupported)) {
				t.Errorf("%s tools=%v request %d: %v", tc.version, tc.tools != nil, i, err)
			}
		}
	}
}
