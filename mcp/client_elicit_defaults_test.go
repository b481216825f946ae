package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

// defaultsForm is the form of SEP-1034's conformance scenario, plus a
// required property with a default (never filled in: it must come from
// the user) and one without a default.
const defaultsForm = `{"type":"object","properties":{
	"name":{"type":"string","default":"John Doe"},
	"age":{"type":"integer","default":30},
	"score":{"type":"number","default":95.5},
	"status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},
	"verified":{"type":"boolean","default":true},
	"nickname":{"type":"string"},
	"email":{"type":"string","default":"a@example.com"}},
	"required":["email"]}`

// An accepted form reaches the server with the defaults of its schema
// filled in where the handler's content lacks an optional property; the
// handler's own result is left as it was; a declined form gets none.
func TestClient_fillsElicitationDefaultsIn(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answer  mcp.ElicitResult
		content string // as the server received it
	}{
		{"accept some", mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"name": "Ada", "verified": false, "email": "ada@example.com"}},
			`{"age":30,"email":"ada@example.com","name":"Ada","score":95.5,"status":"active","verified":false}`},
		{"accept empty", mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{}},
			`{"age":30,"name":"John Doe","score":95.5,"status":"active","verified":true}`},
		{"accept nil", mcp.ElicitResult{Action: mcp.ElicitAccept},
			`{"age":30,"name":"John Doe","score":95.5,"status":"active","verified":true}`},
		{"decline", mcp.ElicitResult{Action: mcp.ElicitDecline}, `null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := mcp.NewServer(nil, nil)
			got := make(chan *mcp.ElicitResult, 1)
			must(t, srv.AddTool(&mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				r, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Who are you?", RequestedSchema: json.RawMessage(defaultsForm)})
				if err != nil {
					return nil, err
				}
				got <- r
				return &mcp.CallToolResult{}, nil
			}))
			answer := tc.answer
			var before []byte
			if answer.Content != nil {
				before, _ = json.Marshal(answer.Content)
			}
			cs := connect(t, srv, mcp.NewClient(nil, &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return &answer, nil },
			}))
			if _, err := cs.CallTool(ctx10(t), "ask", nil); err != nil {
				t.Fatal(err)
			}
			r := <-got
			content, _ := json.Marshal(r.Content)
			if r.Action != tc.answer.Action || string(content) != tc.content {
				t.Errorf("the server received %s %s, want %s %s", r.Action, content, tc.answer.Action, tc.content)
			}
			if after, _ := json.Marshal(answer.Content); answer.Content != nil && string(after) != string(before) {
				t.Errorf("the handler's content changed from %s to %s", before, after)
			}
		})
	}
}
