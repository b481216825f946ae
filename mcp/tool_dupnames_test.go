package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

// TestTool_duplicatedArgumentNamesAreRefused: tools/call whose arguments
// give a member name twice (at any depth, escaped or not) is answered
// -32602 with data naming the member and its JSON Pointer, and the tool
// never runs; sonic alone would have kept the last value. The same call
// without the duplicate runs.
func TestTool_duplicatedArgumentNamesAreRefused(t *testing.T) {
	type point struct {
		X int `json:"x"`
		Y int `json:"y"`
	}
	type args struct {
		A point `json:"a"`
		B []int `json:"b"`
	}
	var ran atomic.Int32
	srv := mcp.NewServer(nil, nil)
	must(t, mcp.AddTool(srv, &mcp.Tool{Name: "sum"}, func(_ context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
		ran.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A.X + in.A.Y)}}}, nil, nil
	}))
	p := newRawPeer(t, srv)
	p.roundTrip(fmt.Sprintf(initMsg, mcp.LatestVersion))
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	for i, tc := range []struct{ args, member, pointer string }{
		{`{"a":{"x":1,"y":2},"b":[],"a":{"x":5,"y":5}}`, "a", "/params/arguments/a"},
		{`{"a":{"x":1,"y":2,"x":40},"b":[]}`, "x", "/params/arguments/a/x"},
		{`{"a":{"x":1,"\u0079":2,"y":40},"b":[]}`, "y", "/params/arguments/a/y"},
	} {
		id := 10 + i
		got := p.roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sum","arguments":%s}}`, id, tc.args))
		var resp struct {
			ID    int
			Error *struct {
				Code int
				Data struct{ Member, Pointer string }
			}
		}
		if err := json.Unmarshal([]byte(got), &resp); err != nil || resp.ID != id || resp.Error == nil {
			t.Fatalf("%s: got %s", tc.args, got)
		}
		if e := resp.Error; e.Code != -32602 || e.Data.Member != tc.member || e.Data.Pointer != tc.pointer {
			t.Errorf("%s: got %s; want -32602 naming %q at %q", tc.args, got, tc.member, tc.pointer)
		}
	}
	if n := ran.Load(); n != 0 {
		t.Fatalf("the tool ran %d times on duplicated arguments", n)
	}
	got := p.roundTrip(`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"sum","arguments":{"a":{"x":1,"y":2},"b":[]}}}`)
	if want := `"text":"3"`; !json.Valid([]byte(got)) || !strings.Contains(got, want) || ran.Load() != 1 {
		t.Fatalf("without a duplicate: got %s, want a result with %s", got, want)
	}
}
