package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
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

// TestTool_duplicatedParamsNamesAreRefused: tools/call whose params give
// a name twice anywhere (their own members, _meta, arguments, in either
// order) is answered -32602 with the error a walk of the whole params
// gives (codec.DuplicateName), naming the first duplicate in the text;
// the tool never runs.
func TestTool_duplicatedParamsNamesAreRefused(t *testing.T) {
	var ran atomic.Int32
	srv := mcp.NewServer(nil, nil)
	must(t, mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		M string `json:"m"`
	}) (*mcp.CallToolResult, any, error) {
		ran.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.M}}}, nil, nil
	}))
	p := newRawPeer(t, srv)
	p.roundTrip(fmt.Sprintf(initMsg, mcp.LatestVersion))
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	for i, params := range []string{
		`{"name":"echo","name":"echo","arguments":{"m":"a"}}`,
		`{"name":"echo","arguments":{"m":"a"},"arguments":{"m":"b"}}`,
		`{"_meta":{},"name":"echo","_meta":{},"arguments":{"m":"a"}}`,
		`{"name":"echo","n\u0061me":"echo","arguments":{"m":"a"}}`,
		`{"name":"echo","arguments":{"m":"a","m":"b"}}`,
		`{"name":"echo","arguments":{"m":"a","\u006d":"b"}}`,
		`{"_meta":{"progressToken":1,"progressToken":2},"name":"echo","arguments":{"m":"a"}}`,
		`{"_meta":{"k":1,"k":2},"name":"echo","arguments":{"m":"a","m":"b"}}`,
		`{"name":"echo","arguments":{"m":"a","m":"b"},"_meta":{"k":1,"k":2}}`,
		`{"arguments":{"m":"a"},"name":"echo","_meta":{"k":{"x":1,"x":2}}}`,
		`{"arguments":{"m":"a"},"x":[{"y":1,"y":2}],"name":"echo"}`,
		`{"name":"echo","arguments":{"m":"a"},"arguments":{"m":"b","m":"c"}}`,
	} {
		id := 100 + i
		got := p.roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id, params))
		at := codec.DuplicateName([]byte(params))
		if at < 0 {
			t.Fatalf("%s: the test case has no duplicate", params)
		}
		want := codec.AppendError(nil, []byte(strconv.Itoa(id)), codec.DuplicateNameError([]byte(params), at))
		if got != string(want) {
			t.Errorf("%s: got %s; want %s", params, got, want)
		}
	}
	if n := ran.Load(); n != 0 {
		t.Fatalf("the tool ran %d times on duplicated names", n)
	}
	got := p.roundTrip(`{"jsonrpc":"2.0","id":200,"method":"tools/call","params":{"_meta":{"k":{"x":1}},"name":"echo","arguments":{"m":"a"}}}`)
	if !strings.Contains(got, `"text":"a"`) || ran.Load() != 1 {
		t.Fatalf("without a duplicate: got %s", got)
	}
}
