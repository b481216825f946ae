package interop_test

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/nodetest"
	"github.com/mcpwire/mcpwire/internal/testproc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// TestInterop_clientAgainstTypeScriptSDKServer runs mcpwire's client
// (the public API: mcp.Client, and mcp/streamable over HTTP) against a
// server written with the official TypeScript SDK's McpServer
// (sdkserver.mjs), over stdio and over Streamable HTTP, in the 2025 era:
// every feature the fixture has, each result checked field by field, and
// a clean close (the server exits with status 0).
func TestInterop_clientAgainstTypeScriptSDKServer(t *testing.T) {
	node := nodetest.Node(t, ".")
	// A client that asks for 2026-07-28, as the default client does
	// (""), finds a server of the 2025 era (server/discover refused) and
	// falls back to initialize.
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728, ""} {
		t.Run(cmp.Or(version, "default"), func(t *testing.T) { clientAgainstTypeScriptSDKServer(t, node, version) })
	}
}

func clientAgainstTypeScriptSDKServer(t *testing.T, node, version string) {
	t.Run("stdio", func(t *testing.T) {
		var stderr testproc.LockedBuffer
		cmd := exec.Command(node, "sdkserver.mjs")
		cmd.Stderr = &stderr
		f := newSDKFixture(version)
		cs, err := f.client.ConnectCommand(ctx30(t), cmd)
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, stderr.String())
		}
		f.check(t, cs)
		// Closing the session closes the server's input: it exits.
		if err := cs.Close(); err != nil || cmd.ProcessState == nil || !cmd.ProcessState.Success() {
			t.Errorf("close: %v, the server ended %v\n%s", err, cmd.ProcessState, stderr.String())
		}
	})
	t.Run("streamable-http", func(t *testing.T) {
		url, stop := startSDKServer(t, node)
		f := newSDKFixture(version)
		cs, err := streamable.Connect(ctx30(t), f.client, url, &streamable.ClientOptions{DisableSSEFallback: true})
		if err != nil {
			t.Fatal(err)
		}
		f.check(t, cs)
		// DELETE ends the session; SIGTERM then ends the server cleanly.
		if err := cs.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		stop()
	})
}

// ctx30 is a context that ends with the test or after 30s.
func ctx30(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// startSDKServer runs sdkserver.mjs over Streamable HTTP on the loopback
// and returns its endpoint, and stop, which ends it with SIGTERM and
// fails the test unless it exits with status 0. It is killed when the
// test ends, if it still runs.
func startSDKServer(t *testing.T, node string) (url string, stop func()) {
	cmd := exec.Command(node, "sdkserver.mjs", "-listen")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log testproc.LockedBuffer
	copied := make(chan struct{})
	exited := make(chan error, 1)
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-copied
			cmd.Wait()
		}
		if t.Failed() {
			t.Logf("sdkserver.mjs said:\n%s", log.String())
		}
	})
	lines := bufio.NewReader(stderr)
	for url == "" {
		line, err := lines.ReadString('\n')
		log.Write([]byte(line))
		if err != nil {
			t.Fatalf("sdkserver.mjs did not log its address: %v\n%s", err, log.String())
		}
		if _, a, ok := strings.Cut(line, " addr="); ok {
			url = strings.TrimSpace(a) + "/mcp"
		}
	}
	go func() {
		defer close(copied)
		io.Copy(&log, lines)
	}()
	return url, func() {
		t.Helper()
		cmd.Process.Signal(syscall.SIGTERM)
		<-copied
		err := cmd.Wait()
		exited <- err
		if err != nil {
			t.Errorf("sdkserver.mjs ended with %v on SIGTERM", err)
		}
	}
}

// sdkFixture is a client whose handlers answer sdkserver.mjs's sampling
// and elicitation requests and record its notifications.
type sdkFixture struct {
	client *mcp.Client

	mu       sync.Mutex
	progress []*mcp.ProgressParams
	logs     []*mcp.LoggingMessageParams
	elicited []*mcp.ElicitParams
	sampled  []*mcp.CreateMessageParams
}

func newSDKFixture(version string) *sdkFixture {
	f := &sdkFixture{}
	f.client = mcp.NewClient(&mcp.Implementation{Name: "mcpwire-interop", Version: "1.0.0"}, &mcp.ClientOptions{
		ProtocolVersion: version,
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			f.mu.Lock()
			f.sampled = append(f.sampled, req.Params)
			f.mu.Unlock()
			var prompt string
			if len(req.Params.Messages) == 1 && len(req.Params.Messages[0].Content) == 1 {
				if tc, ok := req.Params.Messages[0].Content[0].(*mcp.TextContent); ok {
					prompt = tc.Text
				}
			}
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "test-model",
				Content: []mcp.Content{&mcp.TextContent{Text: "echo of " + prompt}}, StopReason: "endTurn"}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			f.mu.Lock()
			f.elicited = append(f.elicited, req.Params)
			f.mu.Unlock()
			// The color is left out: its default is filled in.
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
		},
		ProgressHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ProgressParams) {
			f.mu.Lock()
			f.progress = append(f.progress, p)
			f.mu.Unlock()
		},
		LoggingMessageHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.LoggingMessageParams) {
			f.mu.Lock()
			f.logs = append(f.logs, p)
			f.mu.Unlock()
		},
	})
	return f
}

// text returns the text of r's only content block, or fails.
func text(t *testing.T, what string, r *mcp.CallToolResult) string {
	t.Helper()
	if r == nil || len(r.Content) != 1 || r.IsError {
		t.Fatalf("%s: %+v, want one text block", what, r)
	}
	tc, ok := r.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: a %T, want a text block", what, r.Content[0])
	}
	return tc.Text
}

// callText calls tool with args and returns the text of the result's
// only content block, or fails.
func callText(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool string, args any) string {
	t.Helper()
	r, err := cs.CallTool(ctx, tool, args)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return text(t, tool, r)
}

// recorded returns a copy of what f's handlers recorded in list so far.
func recorded[T any](f *sdkFixture, list *[]T) []T {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(*list)
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

// check drives every feature of the fixture on cs.
func (f *sdkFixture) check(t *testing.T, cs *mcp.ClientSession) {
	ctx := ctx30(t)
	checkLists(t, ctx, cs)
	f.checkTools(t, ctx, cs)
	checkResourcesAndPrompts(t, ctx, cs)
	if err := cs.Ping(ctx); err != nil {
		t.Errorf("ping: %v", err)
	}
}

// checkLists checks initialize's result and every list.
func checkLists(t *testing.T, ctx context.Context, cs *mcp.ClientSession) {
	init := cs.InitializeResult()
	if init.ProtocolVersion != mcp.Version20251125 || init.ServerInfo == nil || init.ServerInfo.Name != "sdkserver" || init.ServerInfo.Version != "1.0.0" {
		t.Errorf("initialize: version %q, server %+v", init.ProtocolVersion, init.ServerInfo)
	}
	if c := init.Capabilities; c.Tools == nil || c.Resources == nil || c.Prompts == nil || c.Logging == nil || c.Completions == nil {
		t.Errorf("initialize: capabilities %+v, want tools, resources, prompts, logging, completions", c)
	}

	// Lists.
	tools := map[string]*mcp.Tool{}
	for tool, err := range cs.Tools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		tools[tool.Name] = tool
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range tools {
			if !yield(n) {
				return
			}
		}
	})
	if want := []string{"add", "ask", "countdown", "echo", "log", "miscount", "sample"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	if tools["echo"].Description != "Echoes its message." || tools["echo"].OutputSchema != nil ||
		!jsonEqual(tools["echo"].InputSchema.(json.RawMessage), []byte(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)) {
		t.Errorf("echo listed as %+v (input schema %s)", tools["echo"], tools["echo"].InputSchema)
	}
	if s, ok := tools["add"].OutputSchema.(json.RawMessage); !ok || !jsonEqual(s, []byte(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"sum":{"type":"number"}},"required":["sum"],"additionalProperties":false}`)) {
		t.Errorf("add's output schema: %s", tools["add"].OutputSchema)
	}
	res, err := cs.ListResources(ctx, nil)
	if err != nil || len(res.Resources) != 1 {
		t.Fatalf("resources/list: %+v, %v", res, err)
	}
	if r := res.Resources[0]; r.URI != "fixture://greeting" || r.Name != "greeting" || r.MIMEType != "text/plain" || r.Description != "A greeting." {
		t.Errorf("resource %+v", r)
	}
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpl.ResourceTemplates) != 1 {
		t.Fatalf("resources/templates/list: %+v, %v", tmpl, err)
	}
	if r := tmpl.ResourceTemplates[0]; r.URITemplate != "fixture://items/{id}" || r.Name != "item" || r.MIMEType != "application/json" {
		t.Errorf("resource template %+v", r)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) != 1 {
		t.Fatalf("prompts/list: %+v, %v", prompts, err)
	}
	if p := prompts.Prompts[0]; p.Name != "review" || p.Description != "Asks for a code review." || len(p.Arguments) != 1 ||
		p.Arguments[0].Name != "topic" || !p.Arguments[0].Required {
		t.Errorf("prompt %+v", p)
	}
}

// checkTools calls every tool, and sets the log level first for the one
// that logs.
func (f *sdkFixture) checkTools(t *testing.T, ctx context.Context, cs *mcp.ClientSession) {
	r, err := cs.CallTool(ctx, "echo", map[string]string{"message": "hello, TypeScript"})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, "echo", r); got != "hello, TypeScript" || r.StructuredContent != nil {
		t.Errorf("echo: %q, structured %v", got, r.StructuredContent)
	}
	r, err = cs.CallTool(ctx, "add", map[string]int{"a": 2, "b": 3})
	if err != nil {
		t.Fatal(err)
	}
	if got, sc := text(t, "add", r), r.StructuredContent; got != `{"sum":5}` || !jsonEqual(sc.(json.RawMessage), []byte(`{"sum":5}`)) {
		t.Errorf("add: %q, structured %s", got, sc)
	}
	r, err = cs.CallTool(ctx, "miscount", nil)
	var oe *mcp.ToolOutputError
	if !errors.As(err, &oe) || r != nil {
		t.Fatalf("miscount: %v, %v; want a *mcp.ToolOutputError", r, err)
	}
	if oe.Tool != "miscount" || !strings.Contains(oe.Err.Error(), "count") ||
		!jsonEqual(oe.Result.StructuredContent.(json.RawMessage), []byte(`{"count":"3"}`)) {
		t.Errorf("miscount: %v (result %+v)", oe, oe.Result)
	}

	r, err = cs.CallToolWith(ctx, &mcp.CallToolParams{Name: "countdown", Arguments: json.RawMessage(`{"from":3}`),
		Meta: mcp.Meta{"progressToken": "count-1"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, "countdown", r); got != "counted 3" {
		t.Errorf("countdown: %q", got)
	}
	progress := recorded(f, &f.progress)
	// The notifications came before the result, on the same stream.
	if len(progress) != 3 {
		t.Fatalf("%d progress notifications, want 3", len(progress))
	}
	for i, p := range progress {
		if string(p.ProgressToken) != `"count-1"` || p.Progress != float64(i+1) || p.Total != 3 || p.Message != "step "+string(rune('1'+i)) {
			t.Errorf("progress %d: %+v (token %s)", i, p, p.ProgressToken)
		}
	}

	action, content, _ := strings.Cut(callText(t, ctx, cs, "ask", nil), " ")
	if action != "accept" || !jsonEqual([]byte(content), []byte(`{"name":"Ada","color":"blue"}`)) {
		t.Errorf("ask: the server received %s %s, want accept with the color's default", action, content)
	}
	elicited := recorded(f, &f.elicited)
	if len(elicited) != 1 || elicited[0].Message != "Who are you?" || elicited[0].Mode != "" && elicited[0].Mode != mcp.ElicitModeForm {
		t.Errorf("elicitation requests %+v", elicited)
	} else if schema, _ := json.Marshal(elicited[0].RequestedSchema); !jsonEqual(schema, []byte(`{"type":"object","properties":{"name":{"type":"string"},"color":{"type":"string","default":"blue"}},"required":["name"]}`)) {
		t.Errorf("elicitation schema %s", schema)
	}

	if got := callText(t, ctx, cs, "sample", map[string]string{"prompt": "Say hi."}); got != "test-model: echo of Say hi." {
		t.Errorf("sample: %q", got)
	}
	sampled := recorded(f, &f.sampled)
	if len(sampled) != 1 || sampled[0].MaxTokens != 50 || len(sampled[0].Messages) != 1 || sampled[0].Messages[0].Role != mcp.RoleUser {
		t.Errorf("sampling requests %+v", sampled)
	}

	if err := cs.SetLoggingLevel(ctx, "info"); err != nil {
		t.Fatal(err)
	}
	if got := callText(t, ctx, cs, "log", map[string]string{"message": "something happened"}); got != "logged" {
		t.Errorf("log: %q", got)
	}
	logs := recorded(f, &f.logs)
	if len(logs) != 1 || logs[0].Level != "info" || logs[0].Logger != "sdkserver" || logs[0].Data != "something happened" {
		for _, l := range logs {
			t.Errorf("log message %+v", *l)
		}
		t.Errorf("%d log messages, want the one at info level", len(logs))
	}
}

// checkResourcesAndPrompts reads the resources, gets the prompt and asks
// for completions of both.
func checkResourcesAndPrompts(t *testing.T, ctx context.Context, cs *mcp.ClientSession) {
	rr, err := cs.ReadResource(ctx, "fixture://greeting")
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Contents) != 1 || rr.Contents[0].URI != "fixture://greeting" || rr.Contents[0].MIMEType != "text/plain" ||
		rr.Contents[0].Text != "Hello from the TypeScript SDK." || rr.Contents[0].Blob != nil {
		t.Errorf("resources/read greeting: %+v", rr.Contents)
	}
	rr, err = cs.ReadResource(ctx, "fixture://items/7")
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Contents) != 1 || rr.Contents[0].URI != "fixture://items/7" || rr.Contents[0].MIMEType != "application/json" ||
		rr.Contents[0].Text != `{"id":"7"}` {
		t.Errorf("resources/read item 7: %+v", rr.Contents)
	}
	pr, err := cs.GetPrompt(ctx, "review", map[string]string{"topic": "go"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.Messages) != 1 || pr.Messages[0].Role != mcp.RoleUser {
		t.Fatalf("prompts/get: %+v", pr)
	}
	if tc, ok := pr.Messages[0].Content.(*mcp.TextContent); !ok || tc.Text != "Review this go code." {
		t.Errorf("prompts/get: %+v", pr.Messages[0].Content)
	}
	for _, c := range []struct {
		ref        mcp.CompleteRef
		arg, typed string
		want       []string
	}{
		{mcp.CompleteRef{Type: mcp.RefPrompt, Name: "review"}, "topic", "r", []string{"rust"}},
		{mcp.CompleteRef{Type: mcp.RefResource, URI: "fixture://items/{id}"}, "id", "1", []string{"1", "12"}},
	} {
		cr, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &c.ref, Argument: mcp.CompleteArgument{Name: c.arg, Value: c.typed}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(cr.Completion.Values, c.want) || cr.Completion.HasMore {
			t.Errorf("completion/complete %s %q: %+v, want %v", c.ref.Type, c.typed, cr.Completion, c.want)
		}
	}
}
