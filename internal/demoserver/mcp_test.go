package demoserver

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"net"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/testproc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// The demo server driven over stdio by mcp.Client, as a client program
// would: the built binary, started by ConnectCommand.

// recorder keeps, in order, what the client saw: the server's
// notifications and the requests it answered.
type recorder struct {
	mu     sync.Mutex
	events []string
	logs   []*mcp.LoggingMessageParams
	prog   []*mcp.ProgressParams
	seen   chan string // each event too, for tests that wait for one
}

func (r *recorder) add(ev string) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
	select {
	case r.seen <- ev:
	default: // nobody waits: the list keeps it
	}
}

func (r *recorder) snapshot() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// waitFor waits for an event that begins with prefix.
func (r *recorder) waitFor(t *testing.T, prefix string, within time.Duration) string {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case ev := <-r.seen:
			if strings.HasPrefix(ev, prefix) {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %q within %v; saw %q", prefix, within, r.snapshot())
		}
	}
}

// connect starts the demo server with args and connects an mcp.Client
// over stdio that answers sampling and elicitation and records every
// notification.
func connect(t *testing.T, version string, args ...string) (*mcp.ClientSession, *recorder) {
	t.Helper()
	return connectOver(t, "stdio", version, args...)
}

// transports are those the MCP tests run over.
var transports = []string{"stdio", "http"}

// connectOver is connect over a transport of transports: the server's
// stdio, or its Streamable HTTP endpoint (-listen http://127.0.0.1:0).
func connectOver(t *testing.T, transport, version string, args ...string) (*mcp.ClientSession, *recorder) {
	t.Helper()
	c, rec := newClient(version)
	if transport == "http" {
		ctx := testCtx(t)
		_, addr, logs := startListening(t, build(t), append([]string{"-listen", "http://127.0.0.1:0"}, args...)...)
		cs, err := streamable.Connect(ctx, c, addr+"/mcp", nil)
		if err != nil {
			t.Fatalf("connect: %v\nstderr: %s", err, logs)
		}
		t.Cleanup(func() {
			cs.Close()
			if t.Failed() {
				t.Logf("demoserver's stderr:\n%s", logs)
			}
		})
		return cs, rec
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(build(t), args...)
	var stderr testproc.LockedBuffer
	cmd.Stderr = &stderr
	cs, err := c.ConnectCommand(ctx, cmd)
	if err != nil {
		t.Fatalf("connect: %v\nstderr: %s", err, stderr.String())
	}
	t.Cleanup(func() {
		cs.Close()
		if t.Failed() {
			t.Logf("demoserver's stderr:\n%s", stderr.String())
		}
	})
	return cs, rec
}

// newClient makes a client that answers sampling and elicitation and
// records every notification.
func newClient(version string) (*mcp.Client, *recorder) {
	rec := &recorder{seen: make(chan string, 64)}
	c := mcp.NewClient(&mcp.Implementation{Name: "demoserver-test", Version: "1"}, &mcp.ClientOptions{
		ProtocolVersion: version,
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			p := req.Params
			rec.add(fmt.Sprintf("sampling: maxTokens=%d messages=%d %s %q", p.MaxTokens, len(p.Messages), p.Messages[0].Role, firstText(p.Messages[0].Content)))
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: []mcp.Content{&mcp.TextContent{Text: "a test answer"}}, Model: "test-model", StopReason: "endTurn"}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			schema, _ := json.Marshal(req.Params.RequestedSchema)
			rec.add("elicitation: " + req.Params.Message + " " + string(schema))
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"username": "ada", "email": "ada@example.com"}}, nil
		},
		URLElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			rec.add("url elicitation: " + req.Params.ElicitationID + " " + req.Params.URL)
			return &mcp.ElicitResult{Action: mcp.ElicitAccept}, nil
		},
		ElicitationCompleteHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ElicitationCompleteParams) {
			rec.add("elicitation complete: " + p.ElicitationID)
		},
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageParams) {
			rec.mu.Lock()
			rec.logs = append(rec.logs, p)
			rec.mu.Unlock()
			rec.add(fmt.Sprintf("log: %s %v", p.Level, p.Data))
		},
		ProgressHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ProgressParams) {
			rec.mu.Lock()
			rec.prog = append(rec.prog, p)
			rec.mu.Unlock()
			rec.add(fmt.Sprintf("progress: %s %v/%v", p.ProgressToken, p.Progress, p.Total))
		},
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedParams) {
			rec.add("updated: " + p.URI)
		},
		ToolListChangedHandler: func(context.Context, *mcp.ClientSession) { rec.add("tools/list_changed") },
	})
	return c, rec
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// textOf returns the text of a result's only block, failing otherwise.
func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("%d content blocks, want 1: %+v", len(res.Content), res.Content)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want text", res.Content[0])
	}
	return tc.Text
}

func TestMCP_initializeNegotiatesEveryVersionAndDeclaresTheCapabilities(t *testing.T) {
	for _, v := range mcp.SupportedVersions() {
		t.Run(v, func(t *testing.T) {
			cs, _ := connect(t, v)
			init := cs.InitializeResult()
			if init.ProtocolVersion != v {
				t.Fatalf("negotiated %q", init.ProtocolVersion)
			}
			got, err := json.Marshal(init.Capabilities)
			if err != nil {
				t.Fatal(err)
			}
			want := `{"logging":{},"completions":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}}`
			switch v {
			case mcp.Version20241105: // completion/complete, but no capability for it yet
				want = `{"logging":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}}`
			case mcp.Version20251125: // and tasks (under 2026-07-28, the tasks extension)
				want = strings.TrimSuffix(want, "}") + `,"tasks":{"cancel":{},"list":{},"requests":{"tools":{"call":{}}}}}`
			}
			if string(got) != want {
				t.Fatalf("capabilities %s, want %s", got, want)
			}
			if init.ServerInfo == nil || init.ServerInfo.Name != "mcpwire-demoserver" || init.Instructions == "" {
				t.Fatalf("serverInfo %+v, instructions %q", init.ServerInfo, init.Instructions)
			}
		})
	}
}

// fixtureTools are the tools the server has from the start.
var fixtureTools = []string{
	"add", "add_dynamic_tool", "confirm_delete", "echo", "failing_job", "greet",
	"json_schema_2020_12_tool", "multi_input", "ping_client", "protocol_error_job",
	"slow_compute", "test_audio_content", "test_elicitation", "test_elicitation_sep1034_defaults",
	"test_elicitation_sep1330_enums", "test_elicitation_url", "test_embedded_resource",
	"test_error_handling", "test_image_content", "test_input_required_result_capabilities",
	"test_input_required_result_elicitation", "test_input_required_result_list_roots",
	"test_input_required_result_multi_round", "test_input_required_result_multiple_inputs",
	"test_input_required_result_request_state", "test_input_required_result_sampling",
	"test_input_required_result_tampered_state", "test_logging_tool",
	"test_missing_capability", "test_multiple_content_types", "test_param_headers",
	"test_reconnection", "test_sampling", "test_simple_text", "test_streaming_elicitation",
	"test_tool_with_logging", "test_tool_with_progress", "test_tool_with_task", "test_trigger_prompt_change",
	"test_trigger_tool_change", "test_url_elicitation_required",
}

func TestMCP_toolsAreListedInPagesWithDescriptions(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			cs, _ := connectOver(t, tr, "", "-page-size", "4")
			ctx := testCtx(t)
			var names []string
			pages, cursor := 0, ""
			for {
				res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
				if err != nil {
					t.Fatal(err)
				}
				pages++
				if len(res.Tools) > 4 {
					t.Fatalf("page %d holds %d tools", pages, len(res.Tools))
				}
				for _, tool := range res.Tools {
					names = append(names, tool.Name)
					if tool.Description == "" {
						t.Errorf("%s has no description", tool.Name)
					}
					if tool.InputSchema == nil {
						t.Errorf("%s has no input schema", tool.Name)
					}
					if tool.Name == "json_schema_2020_12_tool" {
						raw, _ := tool.InputSchema.(json.RawMessage)
						if string(raw) != string(schema202012) {
							t.Errorf("json_schema_2020_12_tool's schema is\n%s\nwant it verbatim:\n%s", raw, schema202012)
						}
					}
					if tool.Name == "add" && tool.OutputSchema == nil {
						t.Error("add has no output schema")
					}
				}
				if cursor = res.NextCursor; cursor == "" {
					break
				}
			}
			if !slices.Equal(names, fixtureTools) {
				t.Fatalf("tools\n%q\nwant\n%q", names, fixtureTools)
			}
			if want := (len(fixtureTools) + 3) / 4; pages != want {
				t.Fatalf("%d pages, want %d", pages, want)
			}
		})
	}
}

func TestMCP_toolsAnswerAsTheSuiteExpects(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			cs, _ := connectOver(t, tr, "")
			ctx := testCtx(t)
			call := func(t *testing.T, name string, args any) *mcp.CallToolResult {
				t.Helper()
				res, err := cs.CallTool(ctx, name, args)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return res
			}
			t.Run("echo", func(t *testing.T) {
				if got := textOf(t, call(t, "echo", map[string]string{"message": "héllo\nworld"})); got != "héllo\nworld" {
					t.Fatalf("got %q", got)
				}
			})
			t.Run("test_simple_text", func(t *testing.T) {
				if got := textOf(t, call(t, "test_simple_text", nil)); got != "This is a simple text response for testing." {
					t.Fatalf("got %q", got)
				}
			})
			t.Run("test_trigger_tool_change", func(t *testing.T) {
				listed := func() bool {
					res, err := cs.ListTools(ctx, nil)
					if err != nil {
						t.Fatal(err)
					}
					return slices.ContainsFunc(res.Tools, func(x *mcp.Tool) bool { return x.Name == "test_changed_tool" })
				}
				for _, want := range []bool{true, false} { // a toggle: added, then removed
					call(t, "test_trigger_tool_change", nil)
					if listed() != want {
						t.Fatalf("test_changed_tool listed: %v, want %v", !want, want)
					}
				}
			})
			t.Run("test_trigger_prompt_change", func(t *testing.T) {
				for _, want := range []bool{true, false} {
					call(t, "test_trigger_prompt_change", nil)
					res, err := cs.ListPrompts(ctx, nil)
					if err != nil {
						t.Fatal(err)
					}
					if got := slices.ContainsFunc(res.Prompts, func(x *mcp.Prompt) bool { return x.Name == "test_changed_prompt" }); got != want {
						t.Fatalf("test_changed_prompt listed: %v, want %v", got, want)
					}
				}
			})
			t.Run("test_image_content", func(t *testing.T) {
				res := call(t, "test_image_content", nil)
				img, ok := res.Content[0].(*mcp.ImageContent)
				if len(res.Content) != 1 || !ok || img.MIMEType != "image/png" {
					t.Fatalf("got %+v", res.Content)
				}
				cfg, err := png.DecodeConfig(bytes.NewReader(img.Data))
				if err != nil || cfg.Width != 1 || cfg.Height != 1 {
					t.Fatalf("not a 1x1 PNG: %+v, %v", cfg, err)
				}
			})
			t.Run("test_audio_content", func(t *testing.T) {
				res := call(t, "test_audio_content", nil)
				a, ok := res.Content[0].(*mcp.AudioContent)
				if len(res.Content) != 1 || !ok || a.MIMEType != "audio/wav" {
					t.Fatalf("got %+v", res.Content)
				}
				checkWAV(t, a.Data)
			})
			t.Run("test_embedded_resource", func(t *testing.T) {
				res := call(t, "test_embedded_resource", nil)
				e, ok := res.Content[0].(*mcp.EmbeddedResource)
				if len(res.Content) != 1 || !ok || e.Resource.URI != "test://embedded-resource" || e.Resource.MIMEType != "text/plain" || e.Resource.Text == "" {
					t.Fatalf("got %+v", res.Content)
				}
			})
			t.Run("test_multiple_content_types", func(t *testing.T) {
				res := call(t, "test_multiple_content_types", nil)
				if len(res.Content) != 3 {
					t.Fatalf("got %d blocks", len(res.Content))
				}
				_, isText := res.Content[0].(*mcp.TextContent)
				_, isImage := res.Content[1].(*mcp.ImageContent)
				e, isRes := res.Content[2].(*mcp.EmbeddedResource)
				if !isText || !isImage || !isRes || e.Resource.URI != "test://mixed-content-resource" || e.Resource.MIMEType != "application/json" || !json.Valid([]byte(e.Resource.Text)) {
					t.Fatalf("got %+v", res.Content)
				}
			})
			t.Run("test_error_handling", func(t *testing.T) {
				res := call(t, "test_error_handling", nil)
				if !res.IsError || textOf(t, res) != "This tool intentionally returns an error for testing" {
					t.Fatalf("got %+v", res)
				}
			})
			t.Run("json_schema_2020_12_tool", func(t *testing.T) {
				res := call(t, "json_schema_2020_12_tool", map[string]any{"name": "n", "address": map[string]string{"city": "Paris"}, "email": "n@example.com"})
				if res.IsError || !strings.Contains(textOf(t, res), `"city":"Paris"`) {
					t.Fatalf("got %+v", res)
				}
				// additionalProperties false is enforced, $ref is followed, and
				// so are allOf and if/then/else.
				if res := call(t, "json_schema_2020_12_tool", map[string]any{"contactMethod": "phone", "email": "e"}); !res.IsError {
					t.Fatalf("contactMethod phone without a phone: %+v", res)
				}
				if res := call(t, "json_schema_2020_12_tool", map[string]any{"nickname": "x", "email": "e"}); !res.IsError || !strings.Contains(textOf(t, res), "nickname") {
					t.Fatalf("an unknown member: %+v", res)
				}
				if res := call(t, "json_schema_2020_12_tool", map[string]any{"address": map[string]any{"city": 7}, "email": "e"}); !res.IsError || !strings.Contains(textOf(t, res), "city") {
					t.Fatalf("a bad address: %+v", res)
				}
			})
			t.Run("test_reconnection", func(t *testing.T) {
				if got := textOf(t, call(t, "test_reconnection", nil)); got != "Reconnection test completed." {
					t.Fatalf("got %q", got)
				}
			})
			t.Run("add", func(t *testing.T) {
				res := call(t, "add", map[string]float64{"a": 2, "b": 0.5})
				raw, _ := res.StructuredContent.(json.RawMessage)
				if res.IsError || string(raw) != `{"sum":2.5}` || textOf(t, res) != `{"sum":2.5}` {
					t.Fatalf("got %+v (structured %s)", res, raw)
				}
			})
			t.Run("invalid arguments name the member", func(t *testing.T) {
				res := call(t, "add", map[string]any{"a": "two", "b": 1})
				if !res.IsError || !strings.Contains(textOf(t, res), `"a"`) && !strings.Contains(textOf(t, res), "/a") {
					t.Fatalf("got %+v", res)
				}
				res = call(t, "echo", map[string]any{})
				if !res.IsError || !strings.Contains(textOf(t, res), "message") {
					t.Fatalf("got %+v", res)
				}
			})
			t.Run("an unknown tool is -32602", func(t *testing.T) {
				_, err := cs.CallTool(ctx, "nope", nil)
				var e *codec.Error
				if !errors.As(err, &e) || e.Code != codec.CodeInvalidParams {
					t.Fatalf("got %v", err)
				}
			})
		})
	}
}

// canon returns raw as encoding/json writes it back (members sorted), as
// the client's handler records the schema it got.
func canon(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkWAV checks the RIFF/WAVE header and that the data chunk is all
// there.
func checkWAV(t *testing.T, b []byte) {
	t.Helper()
	if len(b) < 44 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" || string(b[12:16]) != "fmt " || string(b[36:40]) != "data" {
		t.Fatalf("not a WAV file: % x", b[:min(len(b), 44)])
	}
	n := int(b[40]) | int(b[41])<<8 | int(b[42])<<16 | int(b[43])<<24
	if n == 0 || len(b) != 44+n {
		t.Fatalf("data chunk of %d bytes in a file of %d", n, len(b))
	}
}

func TestMCP_loggingAndProgressArriveDuringTheCall(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			cs, rec := connectOver(t, tr, "")
			ctx := testCtx(t)
			if err := cs.SetLoggingLevel(ctx, mcp.LevelDebug); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res, err := cs.CallTool(ctx, "test_tool_with_logging", nil)
			if err != nil || res.IsError {
				t.Fatalf("%+v, %v", res, err)
			}
			rec.add("result")
			if d := time.Since(start); d < 2*step {
				t.Errorf("the call took %v: the messages were not %v apart", d, step)
			}
			want := []string{
				"log: info Tool execution started", "log: info Tool processing data",
				"log: info Tool execution completed", "result",
			}
			if got := rec.snapshot(); !slices.Equal(got, want) {
				t.Fatalf("events %q, want %q", got, want)
			}

			// At level error, the info messages are not sent.
			if err := cs.SetLoggingLevel(ctx, mcp.LevelError); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.CallTool(ctx, "test_tool_with_logging", nil); err != nil {
				t.Fatal(err)
			}
			if got := rec.snapshot(); len(got) != len(want) {
				t.Fatalf("at level error, events %q", got[len(want):])
			}

			res, err = cs.CallToolWith(ctx, &mcp.CallToolParams{Name: "test_tool_with_progress", Meta: mcp.Meta{"progressToken": "p-1"}})
			if err != nil || res.IsError {
				t.Fatalf("%+v, %v", res, err)
			}
			rec.add("result")
			want = append(want, `progress: "p-1" 0/100`, `progress: "p-1" 50/100`, `progress: "p-1" 100/100`, "result")
			if got := rec.snapshot(); !slices.Equal(got, want) {
				t.Fatalf("events %q, want %q", got, want)
			}
			// Without a token, no progress.
			if _, err := cs.CallTool(ctx, "test_tool_with_progress", nil); err != nil {
				t.Fatal(err)
			}
			if got := rec.snapshot(); len(got) != len(want) {
				t.Fatalf("without a token, events %q", got[len(want):])
			}
		})
	}
}

func TestMCP_samplingAndElicitationAreAnsweredByTheClient(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			cs, rec := connectOver(t, tr, "")
			ctx := testCtx(t)
			res, err := cs.CallTool(ctx, "test_sampling", map[string]string{"prompt": "Say hi"})
			if err != nil {
				t.Fatal(err)
			}
			if got := textOf(t, res); got != "LLM response: a test answer" {
				t.Fatalf("got %q", got)
			}
			if got := rec.snapshot(); len(got) != 1 || got[0] != `sampling: maxTokens=100 messages=1 user "Say hi"` {
				t.Fatalf("the client saw %q", got)
			}

			res, err = cs.CallTool(ctx, "test_elicitation", map[string]string{"message": "Who are you?"})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := textOf(t, res), `User response: action=accept, content={"email":"ada@example.com","username":"ada"}`; got != want {
				t.Fatalf("got %q, want %q", got, want)
			}
			if got := rec.snapshot(); len(got) != 2 || got[1] != "elicitation: Who are you? "+canon(t, elicitationSchema) {
				t.Fatalf("the client saw %q", got)
			}

			for _, tc := range []struct {
				tool   string
				schema json.RawMessage
			}{
				{"test_elicitation_sep1034_defaults", sep1034Schema},
				{"test_elicitation_sep1330_enums", sep1330Schema},
			} {
				res, err := cs.CallTool(ctx, tc.tool, nil)
				if err != nil {
					t.Fatal(err)
				}
				if got := textOf(t, res); !strings.HasPrefix(got, "Elicitation completed: action=accept, content={") {
					t.Fatalf("%s: got %q", tc.tool, got)
				}
				evs := rec.snapshot()
				if last := evs[len(evs)-1]; !strings.HasSuffix(last, " "+canon(t, tc.schema)) {
					t.Fatalf("%s: the client saw %q", tc.tool, last)
				}
			}

			// The server pings its client under the versions with
			// initialize; 2026-07-28 has no ping: a tool error.
			res, err = cs.CallTool(ctx, "ping_client", nil)
			stateless := mcp.IsStatelessVersion(cs.ProtocolVersion())
			if err != nil || res.IsError != stateless || !stateless && !strings.HasPrefix(textOf(t, res), "The client answered ping") {
				t.Fatalf("ping_client under %s: %+v, %v", cs.ProtocolVersion(), res, err)
			}
		})
	}
}

// TestMCP_urlModeElicitation: test_elicitation_url has the client open a
// URL and then tells it the interaction has completed;
// test_url_elicitation_required fails with -32042 naming a URL, tells of
// its completion soon after, and then succeeds.
//
// The completion notification is of 2025-11-25 (2026-07-28 removed it):
// the client asks for that version.
func TestMCP_urlModeElicitation(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			cs, rec := connectOver(t, tr, mcp.Version20251125)
			ctx := testCtx(t)
			res, err := cs.CallTool(ctx, "test_elicitation_url", nil)
			if err != nil {
				t.Fatal(err)
			}
			id, _ := strings.CutPrefix(textOf(t, res), "URL elicitation ")
			id, ok := strings.CutSuffix(id, ": action=accept")
			if !ok || id == "" {
				t.Fatalf("got %q", textOf(t, res))
			}
			rec.waitFor(t, "url elicitation: "+id+" "+demoURL+"?id="+id, 5*time.Second)
			rec.waitFor(t, "elicitation complete: "+id, 5*time.Second)

			_, err = cs.CallTool(ctx, "test_url_elicitation_required", nil)
			els := mcp.URLElicitations(err)
			if len(els) != 1 || els[0].Mode != mcp.ElicitModeURL || els[0].URL != demoURL+"?id="+els[0].ElicitationID {
				t.Fatalf("first call: %v, elicitations %+v", err, els)
			}
			rec.waitFor(t, "elicitation complete: "+els[0].ElicitationID, 5*time.Second)
			if res, err := cs.CallTool(ctx, "test_url_elicitation_required", nil); err != nil || textOf(t, res) != "Authorized" {
				t.Fatalf("after completion: %+v, %v", res, err)
			}
		})
	}
}

// Under the versions with initialize, a tool that needs a capability the
// client did not declare fails as a tool; under 2026-07-28 (the default)
// the request fails with -32021, naming the capability.
func TestMCP_samplingWithoutTheCapabilityIsAToolError(t *testing.T) {
	for _, version := range []string{mcp.Version20251125, ""} {
		t.Run(cmp.Or(version, "default"), func(t *testing.T) {
			c := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version})
			ctx := testCtx(t)
			cs, err := c.ConnectCommand(ctx, exec.Command(build(t)))
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			for _, tc := range []struct {
				tool, capability string
				args             map[string]string
			}{
				{"test_sampling", "sampling", map[string]string{"prompt": "x"}},
				{"test_elicitation", "elicitation", map[string]string{"message": "x"}},
			} {
				res, err := cs.CallTool(ctx, tc.tool, tc.args)
				if version == "" {
					var e *codec.Error
					if !errors.As(err, &e) || e.Code != codec.CodeMissingRequiredClientCapability || !strings.Contains(fmt.Sprintf("%s", e.Data), tc.capability) {
						t.Fatalf("%s: %+v, %v (data %v), want -32021 naming %s", tc.tool, res, err, e, tc.capability)
					}
					continue
				}
				if err != nil || !res.IsError || !strings.Contains(textOf(t, res), "does not support") {
					t.Fatalf("%s: %+v, %v", tc.tool, res, err)
				}
			}
		})
	}
}

func TestMCP_aToolAddedAtRunTimeIsAnnounced(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			cs, rec := connectOver(t, tr, "")
			ctx := testCtx(t)
			if _, err := cs.CallTool(ctx, "test_dynamic_tool", nil); err == nil {
				t.Fatal("test_dynamic_tool exists from the start")
			}
			if res, err := cs.CallTool(ctx, "add_dynamic_tool", nil); err != nil || res.IsError {
				t.Fatalf("%+v, %v", res, err)
			}
			rec.waitFor(t, "tools/list_changed", 10*time.Second)
			var names []string
			for tool, err := range cs.Tools(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, tool.Name)
			}
			if !slices.Contains(names, "test_dynamic_tool") {
				t.Fatalf("tools after the change: %q", names)
			}
			res, err := cs.CallTool(ctx, "test_dynamic_tool", nil)
			if err != nil || textOf(t, res) != "This tool was added at run time." {
				t.Fatalf("%+v, %v", res, err)
			}
		})
	}
}

func TestMCP_resources(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			// The demo server changes test://watched-resource only while
			// a session (2025-11-25) is subscribed: not for a
			// subscriptions/listen stream of 2026-07-28.
			cs, rec := connectOver(t, tr, mcp.Version20251125, "-watch-interval", "50ms")
			ctx := testCtx(t)
			var uris []string
			for r, err := range cs.Resources(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				if r.Name == "" || r.Description == "" || r.MIMEType == "" {
					t.Errorf("resource %+v", r)
				}
				uris = append(uris, r.URI)
			}
			if want := []string{"test://static-binary", "test://static-text", watchedURI}; !slices.Equal(uris, want) {
				t.Fatalf("resources %q, want %q", uris, want)
			}
			tmpls, err := cs.ListResourceTemplates(ctx, nil)
			if err != nil || len(tmpls.ResourceTemplates) != 1 || tmpls.ResourceTemplates[0].URITemplate != templateURI {
				t.Fatalf("templates %+v, %v", tmpls, err)
			}

			read := func(uri string) *mcp.ResourceContents {
				t.Helper()
				res, err := cs.ReadResource(ctx, uri)
				if err != nil {
					t.Fatalf("%s: %v", uri, err)
				}
				if len(res.Contents) != 1 || res.Contents[0].URI != uri {
					t.Fatalf("%s: %+v", uri, res.Contents)
				}
				return res.Contents[0]
			}
			if c := read("test://static-text"); c.MIMEType != "text/plain" || c.Text != "This is the content of the static text resource." {
				t.Fatalf("static-text: %+v", c)
			}
			if c := read("test://static-binary"); c.MIMEType != "image/png" || !bytes.Equal(c.Blob, pngPixel) {
				t.Fatalf("static-binary: %+v", c)
			}
			if c := read("test://template/123/data"); c.MIMEType != "application/json" || c.Text != `{"id":"123","templateTest":true,"data":"Data for ID: 123"}` {
				t.Fatalf("template: %+v", c)
			}
			_, err = cs.ReadResource(ctx, "test://nothing")
			var e *codec.Error
			if !errors.As(err, &e) || e.Code != codec.CodeResourceNotFound {
				t.Fatalf("an unknown resource: %v", err)
			}

			version := func() int {
				t.Helper()
				text := read(watchedURI).Text
				var v int
				if _, err := fmt.Sscanf(text, "Watched resource content, version %d.", &v); err != nil {
					t.Fatalf("watched: %q: %v", text, err)
				}
				return v
			}
			before := version()
			if err := cs.Subscribe(ctx, watchedURI); err != nil {
				t.Fatal(err)
			}
			rec.waitFor(t, "updated: "+watchedURI, 10*time.Second)
			if after := version(); after == before {
				t.Fatalf("updated, but still version %d", after)
			}
			if err := cs.Unsubscribe(ctx, watchedURI); err != nil {
				t.Fatal(err)
			}
			// The server changes the resource only while a session is
			// subscribed: after the unsubscribe, once more at most (a change
			// that checked for subscribers before it), however late the
			// updates already sent arrive. Ten intervals give it the time
			// to go on if it were to.
			unsubscribed := version()
			time.Sleep(10 * 50 * time.Millisecond)
			last := version()
			if last > unsubscribed+1 {
				t.Fatalf("the resource changed from version %d to %d after the unsubscribe", unsubscribed, last)
			}
			// Every update told of a change.
			updates := 0
			for _, ev := range rec.snapshot() {
				if ev == "updated: "+watchedURI {
					updates++
				}
			}
			if updates > last-before {
				t.Fatalf("%d updates for %d changes", updates, last-before)
			}
		})
	}
}

func TestMCP_promptsAndCompletion(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			cs, _ := connectOver(t, tr, "")
			ctx := testCtx(t)
			var names []string
			for p, err := range cs.Prompts(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				if p.Description == "" {
					t.Errorf("%s has no description", p.Name)
				}
				names = append(names, p.Name)
			}
			if want := []string{"test_input_required_result_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource", "test_prompt_with_image", "test_simple_prompt"}; !slices.Equal(names, want) {
				t.Fatalf("prompts %q", names)
			}
			get := func(name string, args map[string]string) []*mcp.PromptMessage {
				t.Helper()
				res, err := cs.GetPrompt(ctx, name, args)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return res.Messages
			}
			if m := get("test_simple_prompt", nil); len(m) != 1 || m[0].Content.(*mcp.TextContent).Text != "This is a simple prompt for testing." {
				t.Fatalf("simple: %+v", m)
			}
			if m := get("test_prompt_with_arguments", map[string]string{"arg1": "hello", "arg2": "world"}); len(m) != 1 || m[0].Content.(*mcp.TextContent).Text != "Prompt with arguments: arg1='hello', arg2='world'" {
				t.Fatalf("with arguments: %+v", m)
			}
			m := get("test_prompt_with_embedded_resource", map[string]string{"resourceUri": "test://example-resource"})
			if e, ok := m[0].Content.(*mcp.EmbeddedResource); len(m) != 2 || !ok || e.Resource.URI != "test://example-resource" {
				t.Fatalf("embedded resource: %+v", m)
			}
			m = get("test_prompt_with_image", nil)
			if img, ok := m[0].Content.(*mcp.ImageContent); len(m) != 2 || !ok || !bytes.Equal(img.Data, pngPixel) {
				t.Fatalf("image: %+v", m)
			}
			_, err := cs.GetPrompt(ctx, "test_prompt_with_arguments", map[string]string{"arg1": "x"})
			var e *codec.Error
			if !errors.As(err, &e) || e.Code != codec.CodeInvalidParams || !strings.Contains(e.Message, "arg2") {
				t.Fatalf("a missing argument: %v", err)
			}

			complete := func(ref *mcp.CompleteRef, arg, value string) []string {
				t.Helper()
				res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteArgument{Name: arg, Value: value}})
				if err != nil {
					t.Fatal(err)
				}
				return res.Completion.Values
			}
			prompt := &mcp.CompleteRef{Type: mcp.RefPrompt, Name: "test_prompt_with_arguments"}
			if got := complete(prompt, "arg1", "par"); !slices.Equal(got, []string{"paris", "park", "party"}) {
				t.Fatalf("arg1 par: %q", got)
			}
			if got := complete(prompt, "arg1", "zzz"); got == nil || len(got) != 0 {
				t.Fatalf("arg1 zzz: %#v", got)
			}
			if got := complete(&mcp.CompleteRef{Type: mcp.RefResource, URI: templateURI}, "id", "1"); !slices.Equal(got, []string{"1", "123"}) {
				t.Fatalf("id 1: %q", got)
			}
		})
	}
}

// TestMCP_specMethodsShareTheStream: the JSON-RPC specification's methods
// answer on an MCP session too, and batches follow the negotiated
// version once initialize has run.
func TestMCP_specMethodsShareTheStream(t *testing.T) {
	for _, v := range []string{mcp.Version20250618, mcp.Version20250326} {
		t.Run(v, func(t *testing.T) {
			cs, _ := connect(t, v)
			ctx := testCtx(t)
			raw, err := cs.Conn().CallRaw(ctx, "subtract", []int{42, 23})
			if err != nil || string(raw) != "19" {
				t.Fatalf("subtract: %s, %v", raw, err)
			}
			res, err := cs.CallTool(ctx, "echo", map[string]string{"message": "still MCP"})
			if err != nil || textOf(t, res) != "still MCP" {
				t.Fatalf("%+v, %v", res, err)
			}
		})
	}
}

func TestMCP_batchesFollowTheNegotiatedVersion(t *testing.T) {
	bin := build(t)
	batch := `[{"jsonrpc":"2.0","id":"a","method":"sum","params":[1,2]},{"jsonrpc":"2.0","id":"b","method":"ping"}]`
	for _, tc := range []struct {
		version string
		want    string // after initialize
	}{
		{mcp.Version20250326, `[{"jsonrpc":"2.0","id":"a","result":3},{"jsonrpc":"2.0","id":"b","result":{}}]`},
		{mcp.Version20250618, `"code":-32600`},
	} {
		t.Run(tc.version, func(t *testing.T) {
			_, c, stdin, _ := startStdio(t, bin, codec.Newline)
			defer stdin.Close()
			c.send(batch) // before initialize: plain JSON-RPC
			if got := string(c.recv()); !strings.Contains(got, `"id":"a","result":3`) || !strings.Contains(got, `"result":{}`) {
				t.Fatalf("before initialize: %s", got)
			}
			c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + tc.version + `","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
			if got := string(c.recv()); !strings.Contains(got, `"protocolVersion":"`+tc.version+`"`) {
				t.Fatalf("initialize: %s", got)
			}
			c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			c.send(batch)
			if got := string(c.recv()); !strings.Contains(got, tc.want) {
				t.Fatalf("after initialize: %s, want %s", got, tc.want)
			}
		})
	}
}

func TestMCP_beforeInitializeOnlyPlainMethodsAndPing(t *testing.T) {
	_, c, stdin, _ := startStdio(t, build(t), codec.Newline)
	defer stdin.Close()
	for _, tc := range []struct{ send, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}`, `{"jsonrpc":"2.0","id":1,"result":19}`},
		{`{"jsonrpc":"2.0","id":2,"method":"ping"}`, `{"jsonrpc":"2.0","id":2,"result":{}}`},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, `"code":-32600`},
		{`{"jsonrpc":"2.0","id":4,"method":"echo","params":{"x":[1]}}`, `{"jsonrpc":"2.0","id":4,"result":{"x":[1]}}`},
	} {
		c.send(tc.send)
		if got := strings.TrimSpace(string(c.recv())); !strings.Contains(got, tc.want) {
			t.Errorf("%s: got %s, want %s", tc.send, got, tc.want)
		}
	}
}

// TestMCP_eachConnectionIsASessionOfItsOwn over TCP and a Unix socket: two
// clients at once, each with its own version and log level.
func TestMCP_eachConnectionIsASessionOfItsOwn(t *testing.T) {
	bin := build(t)
	sock := filepath.Join(t.TempDir(), "mcp.sock")
	for _, listen := range []string{"tcp://127.0.0.1:0", "unix://" + sock} {
		network, _, _ := strings.Cut(listen, "://")
		t.Run(network, func(t *testing.T) {
			cmd, addr, logs := startListening(t, bin, "-listen", listen)
			ctx := testCtx(t)
			dial := func(version string, logged *atomic.Int32) *mcp.ClientSession {
				t.Helper()
				_, hostport, _ := strings.Cut(addr, "://")
				nc, err := net.DialTimeout(network, hostport, 5*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				c := mcp.NewClient(&mcp.Implementation{Name: "tcp-" + version, Version: "1"}, &mcp.ClientOptions{
					ProtocolVersion: version,
					LoggingMessageHandler: func(context.Context, *mcp.ClientSession, *mcp.LoggingMessageParams) {
						logged.Add(1)
					},
				})
				cs, err := c.ConnectIO(ctx, nc)
				if err != nil {
					t.Fatalf("%s: %v\n%s", version, err, logs)
				}
				t.Cleanup(func() { cs.Close() })
				return cs
			}
			var logsA, logsB atomic.Int32
			a := dial(mcp.Version20241105, &logsA)
			b := dial(mcp.Version20251125, &logsB)
			if a.ProtocolVersion() != mcp.Version20241105 || b.ProtocolVersion() != mcp.Version20251125 {
				t.Fatalf("versions %q and %q", a.ProtocolVersion(), b.ProtocolVersion())
			}
			if err := a.SetLoggingLevel(ctx, mcp.LevelError); err != nil {
				t.Fatal(err)
			}
			for _, cs := range []*mcp.ClientSession{a, b} {
				if _, err := cs.CallTool(ctx, "test_tool_with_logging", nil); err != nil {
					t.Fatal(err)
				}
			}
			if logsA.Load() != 0 || logsB.Load() != 3 {
				t.Fatalf("log messages: %d at level error, %d at info", logsA.Load(), logsB.Load())
			}
			a.Close()
			b.Close()
			terminate(t, cmd, logs)
		})
	}
}
