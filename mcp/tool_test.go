package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
)

type greetIn struct {
	Name     string   `json:"name" jsonschema:"who to greet"`
	Times    int      `json:"times,omitempty"`
	Polite   *bool    `json:"polite"`
	Tags     []string `json:"tags,omitempty"`
	Nickname string   `json:"nickname,omitzero"`
}

type greetOut struct {
	Greeting string `json:"greeting"`
	Length   int    `json:"length"`
}

func greetServer(t *testing.T) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1"}, nil)
	err := mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Greets someone"},
		func(_ context.Context, _ *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, greetOut, error) {
			if in.Name == "fail" {
				return nil, greetOut{}, errors.New("cannot greet fail")
			}
			if in.Name == "protocol" {
				return nil, greetOut{}, codec.NewError(codec.CodeInvalidParams, "no such person")
			}
			g := "Hello, " + in.Name
			if in.Polite != nil && *in.Polite {
				g = "Good day, " + in.Name
			}
			return nil, greetOut{Greeting: g, Length: len(g)}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// toolResult is a tools/call result as the tests read it.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func callTool(cl *client, name string, args any) toolResult {
	cl.t.Helper()
	var r toolResult
	cl.mustCall("tools/call", map[string]any{"name": name, "arguments": args}, &r)
	return r
}

func TestTools_schemaInferredFromGoTypes(t *testing.T) {
	cl := newClient(t, greetServer(t))
	cl.initialize(mcp.LatestVersion)
	raw, err := cl.call("tools/list", nil)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []struct {
			Name         string         `json:"name"`
			InputSchema  map[string]any `json:"inputSchema"`
			OutputSchema map[string]any `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := codec.Unmarshal(raw, &list); err != nil || len(list.Tools) != 1 {
		t.Fatalf("%s: %v", raw, err)
	}
	in := list.Tools[0].InputSchema
	if in["type"] != "object" {
		t.Fatalf("input schema %v", in)
	}
	req, _ := in["required"].([]any)
	if len(req) != 1 || req[0] != "name" {
		t.Fatalf("required = %v; want only name (polite is a pointer, the rest omitempty/omitzero)", in["required"])
	}
	if _, ok := in["additionalProperties"]; !ok {
		t.Fatalf("a struct admits no other properties: %v", in)
	}
	props := in["properties"].(map[string]any)
	if d := props["name"].(map[string]any)["description"]; d != "who to greet" {
		t.Fatalf("description %v", d)
	}
	out := list.Tools[0].OutputSchema
	if out["type"] != "object" || len(out["required"].([]any)) != 2 {
		t.Fatalf("output schema %v", out)
	}
}

func TestTools_callReturnsStructuredContentMirroredAsText(t *testing.T) {
	cl := newClient(t, greetServer(t))
	cl.initialize(mcp.LatestVersion)
	r := callTool(cl, "greet", map[string]any{"name": "Ada", "polite": true})
	if r.IsError || len(r.Content) != 1 || r.Content[0].Type != "text" {
		t.Fatalf("got %+v", r)
	}
	want := `{"greeting":"Good day, Ada","length":13}`
	if string(r.StructuredContent) != want || r.Content[0].Text != want {
		t.Fatalf("structured %s, text %q; want %s", r.StructuredContent, r.Content[0].Text, want)
	}
}

func TestTools_invalidArgumentsAreAToolErrorNamingTheField(t *testing.T) {
	cl := newClient(t, greetServer(t))
	cl.initialize(mcp.LatestVersion)
	for _, tc := range []struct {
		name  string
		args  any
		field string
	}{
		{"missing", map[string]any{}, "name"},
		{"wrong type", map[string]any{"name": 5}, "name"},
		{"wrong case", map[string]any{"Name": "Ada"}, "Name"},
		{"not integer", map[string]any{"name": "Ada", "times": 1.5}, "times"},
		{"unknown", map[string]any{"name": "Ada", "extra": 1}, "extra"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := callTool(cl, "greet", tc.args)
			if !r.IsError || len(r.Content) != 1 || !strings.Contains(r.Content[0].Text, tc.field) {
				t.Fatalf("got %+v; want isError naming %q", r, tc.field)
			}
		})
	}
}

func TestTools_membersMatchCaseExactly(t *testing.T) {
	// A verbatim schema that admits other properties: "Message" passes
	// validation, and must not fill the field named "message".
	srv := mcp.NewServer(nil, nil)
	type in struct {
		Message string `json:"message,omitempty"`
	}
	err := mcp.AddTool(srv, &mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}}}`)},
		func(_ context.Context, _ *mcp.CallToolRequest, in in) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "[" + in.Message + "]"}}}, nil, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	cl := newClient(t, srv)
	cl.initialize(mcp.LatestVersion)
	if r := callTool(cl, "echo", map[string]any{"Message": "x"}); r.Content[0].Text != "[]" {
		t.Fatalf("got %+v", r)
	}
	if r := callTool(cl, "echo", map[string]any{"message": "x"}); r.Content[0].Text != "[x]" || r.StructuredContent != nil {
		t.Fatalf("got %+v", r)
	}
}

func TestTools_unknownToolIsInvalidParamsWithItsName(t *testing.T) {
	cl := newClient(t, greetServer(t))
	cl.initialize(mcp.LatestVersion)
	e := cl.callErr("tools/call", map[string]any{"name": "nope"})
	if e.Code != codec.CodeInvalidParams || !strings.Contains(e.Message, "nope") {
		t.Fatalf("got %v", e)
	}
	data, _ := json.Marshal(e.Data)
	if !strings.Contains(string(data), `"name":"nope"`) || !strings.Contains(string(data), `"greet"`) {
		t.Fatalf("data %s", data)
	}
}

func TestTools_handlerErrors(t *testing.T) {
	cl := newClient(t, greetServer(t))
	cl.initialize(mcp.LatestVersion)
	r := callTool(cl, "greet", map[string]any{"name": "fail"})
	if !r.IsError || r.Content[0].Text != "cannot greet fail" || r.StructuredContent != nil {
		t.Fatalf("a plain error is a tool error: got %+v", r)
	}
	if e := cl.callErr("tools/call", map[string]any{"name": "greet", "arguments": map[string]any{"name": "protocol"}}); e.Code != codec.CodeInvalidParams || e.Message != "no such person" {
		t.Fatalf("a *codec.Error is a protocol error: got %v", e)
	}
	if e := cl.callErr("tools/call", map[string]any{"name": "greet", "arguments": []int{1}}); e.Code != codec.CodeInvalidParams {
		t.Fatalf("arguments that are not an object: got %v", e)
	}
}

// The conformance suite's json_schema_2020_12_tool: its schema is served
// as given.
const schema202012 = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"}},"additionalProperties":false}`

func TestTools_verbatimSchemaIsServedByteForByteAndEnforced(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	err := srv.AddTool(&mcp.Tool{Name: "json_schema_2020_12_tool", InputSchema: json.RawMessage("  " + schema202012 + "\n")},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	cl := newClient(t, srv)
	cl.initialize(mcp.LatestVersion)
	raw, err := cl.call("tools/list", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"tools":[{"name":"json_schema_2020_12_tool","inputSchema":` + schema202012 + `}]}`
	if string(raw) != want {
		t.Fatalf("got  %s\nwant %s", raw, want)
	}
	if r := callTool(cl, "json_schema_2020_12_tool", map[string]any{"name": "a", "address": map[string]any{"street": 5}}); !r.IsError || !strings.Contains(r.Content[0].Text, "street") {
		t.Fatalf("$ref into $defs is enforced: got %+v", r)
	}
	if r := callTool(cl, "json_schema_2020_12_tool", map[string]any{"name": "a", "address": map[string]any{"street": "Main"}}); r.IsError {
		t.Fatalf("got %+v", r)
	}
}

func TestTools_outputIsCheckedAgainstTheOutputSchema(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	err := srv.AddTool(&mcp.Tool{Name: "bad", OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{StructuredContent: map[string]any{"n": "three"}}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	cl := newClient(t, srv)
	cl.initialize(mcp.LatestVersion)
	if e := cl.callErr("tools/call", map[string]any{"name": "bad"}); e.Code != codec.CodeInternalError || !strings.Contains(e.Message, "output schema") {
		t.Fatalf("got %v", e)
	}
}

func TestTools_badSchemasAreRefusedAtRegistration(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
	for _, s := range []any{json.RawMessage(`{"type":"string"}`), json.RawMessage(`{"type":`), json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#/$defs/none"}}}`)} {
		if err := srv.AddTool(&mcp.Tool{Name: "x", InputSchema: s}, h); err == nil {
			t.Errorf("schema %s accepted", s)
		}
	}
	if err := mcp.AddTool(srv, &mcp.Tool{Name: "y"}, func(context.Context, *mcp.CallToolRequest, string) (*mcp.CallToolResult, any, error) {
		return nil, nil, nil
	}); err == nil {
		t.Error("a string input accepted")
	}
	if err := srv.AddTool(&mcp.Tool{}, h); err == nil {
		t.Error("a tool without a name accepted")
	}
}

func TestTools_contentBlocksOfEveryKind(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	prio := 0.5
	size := int64(3)
	err := srv.AddTool(&mcp.Tool{Name: "mixed"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "hi", Annotations: &mcp.Annotations{Audience: []mcp.Role{mcp.RoleUser}, Priority: &prio}},
			&mcp.ImageContent{Data: []byte{1, 2, 3}, MIMEType: "image/png"},
			&mcp.AudioContent{Data: []byte{4}, MIMEType: "audio/wav"},
			&mcp.ResourceLink{URI: "file:///a", Name: "a", Size: &size},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://e", MIMEType: "text/plain", Text: ""}},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://b", Blob: []byte{}}},
		}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cl := newClient(t, srv)
	cl.initialize(mcp.LatestVersion)
	raw, err := cl.call("tools/call", map[string]any{"name": "mixed"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"content":[` +
		`{"type":"text","text":"hi","annotations":{"audience":["user"],"priority":0.5}},` +
		`{"type":"image","data":"AQID","mimeType":"image/png"},` +
		`{"type":"audio","data":"BA==","mimeType":"audio/wav"},` +
		`{"type":"resource_link","uri":"file:///a","name":"a","size":3},` +
		`{"type":"resource","resource":{"uri":"test://e","mimeType":"text/plain","text":""}},` +
		`{"type":"resource","resource":{"uri":"test://b","blob":""}}]}`
	if string(raw) != want {
		t.Fatalf("got  %s\nwant %s", raw, want)
	}
	var res mcp.CallToolResult
	if err := codec.UnmarshalExact(raw, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 6 {
		t.Fatalf("decoded %d blocks", len(res.Content))
	}
	if img, ok := res.Content[1].(*mcp.ImageContent); !ok || string(img.Data) != "\x01\x02\x03" {
		t.Fatalf("image decoded as %#v", res.Content[1])
	}
	if e, ok := res.Content[5].(*mcp.EmbeddedResource); !ok || e.Resource.Blob == nil {
		t.Fatalf("blob decoded as %#v", res.Content[5])
	}
}

// TestAddTool_sharedResultsAreNeverModified: a handler may return the
// same result value to every call; the server changes what an older
// protocol version or a missing content list needs in a copy of its own,
// and sends a result with nothing to change as it is, so that concurrent
// calls at different versions (under -race) leave the value as it was.
func TestAddTool_sharedResultsAreNeverModified(t *testing.T) {
	fresh := func() map[string]*mcp.CallToolResult {
		return map[string]*mcp.CallToolResult{
			"plain": {Content: []mcp.Content{&mcp.TextContent{Text: "plain"}}},
			"meta":  {Content: []mcp.Content{&mcp.TextContent{Text: "meta", Meta: mcp.Meta{"k": "v"}}}},
			"empty": {},
		}
	}
	shared := fresh()
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	for name, res := range shared {
		err := mcp.AddTool(srv, &mcp.Tool{Name: name, Description: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return res, nil, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for _, version := range []string{"2025-11-25", "2025-03-26"} {
		cs := connect(t, srv, mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version}))
		for range 4 {
			wg.Go(func() {
				for range 20 {
					for name := range shared {
						res, err := cs.CallTool(context.Background(), name, nil)
						if err != nil {
							t.Errorf("%s at %s: %v", name, version, err)
							return
						}
						var meta mcp.Meta
						if len(res.Content) > 0 {
							meta = res.Content[0].(*mcp.TextContent).Meta
						}
						if wantMeta := name == "meta" && version == "2025-11-25"; (meta != nil) != wantMeta || res.Content == nil {
							t.Errorf("%s at %s: content %v, meta %v", name, version, res.Content, meta)
						}
					}
				}
			})
		}
	}
	wg.Wait()
	if want := fresh(); !reflect.DeepEqual(shared, want) {
		t.Errorf("shared results changed: %+v", shared)
	}
}
