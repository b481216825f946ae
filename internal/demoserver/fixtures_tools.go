package demoserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
)

// The tools of the MCP conformance suite (shared/CONFORMANCE.md §1), with
// the names, texts and behaviours it expects, plus echo (the smallest
// tool, for load tests and benchmarks), add (structured output),
// ping_client (a ping from server to client) and add_dynamic_tool (adds
// test_dynamic_tool at run time). Every tool has a description: the
// suite's tools-list check requires one.

// step is the pause between the notifications of the logging and progress
// tools: the suite asks for about 50 ms, so that the client sees them
// arrive one by one during the call.
const step = 50 * time.Millisecond

// noArgs is the arguments of a tool that takes none: its schema admits an
// empty object only.
type noArgs struct{}

// text is a result of one text block.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// pause waits d, or less if ctx ends first (a cancelled call stops at
// once).
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// constant adds a tool without arguments that always returns res.
func constant(s *mcp.Server, name, description string, res *mcp.CallToolResult) error {
	return mcp.AddTool(s, &mcp.Tool{Name: name, Description: description},
		func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
			return res, nil, nil
		})
}

// addTools registers the tools.
func (d *demo) addTools() error {
	s := d.srv
	return errors.Join(
		addEcho(s),
		d.addStatelessTools(),
		constant(s, "test_simple_text", "Returns one text block",
			text("This is a simple text response for testing.")),
		constant(s, "test_image_content", "Returns an image block (a 1x1 PNG)",
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: pngPixel, MIMEType: "image/png"}}}),
		constant(s, "test_audio_content", "Returns an audio block (10 ms of WAV)",
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: wavTone, MIMEType: "audio/wav"}}}),
		constant(s, "test_embedded_resource", "Returns an embedded text resource",
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
				URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content.",
			}}}}),
		constant(s, "test_multiple_content_types", "Returns a text, an image and an embedded resource block",
			&mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "Multiple content types test:"},
				&mcp.ImageContent{Data: pngPixel, MIMEType: "image/png"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
					URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`,
				}},
			}}),
		mcp.AddTool(s, &mcp.Tool{Name: "test_tool_with_logging", Description: "Sends three info log messages during the call, 50 ms apart"}, logging),
		mcp.AddTool(s, &mcp.Tool{Name: "test_tool_with_progress", Description: "Reports progress 0, 50 and 100 of 100, 50 ms apart, when given a progress token"}, progress),
		constant(s, "test_error_handling", "Always fails: a result with isError set",
			&mcp.CallToolResult{Content: text("This tool intentionally returns an error for testing").Content, IsError: true}),
		mcp.AddTool(s, &mcp.Tool{Name: "test_sampling", Description: "Asks the client to sample its model with the prompt (sampling/createMessage)"}, sampling),
		mcp.AddTool(s, &mcp.Tool{Name: "test_elicitation", Description: "Asks the user, through the client, for a username and an email (elicitation/create)"}, elicitation),
		mcp.AddTool(s, &mcp.Tool{Name: "test_elicitation_sep1034_defaults", Description: "Elicits a form whose fields have default values (SEP-1034)"},
			elicitWith(sep1034Schema, "Please review and update the form fields with defaults", "Elicitation completed")),
		mcp.AddTool(s, &mcp.Tool{Name: "test_elicitation_sep1330_enums", Description: "Elicits a form with the five kinds of enum fields (SEP-1330)"},
			elicitWith(sep1330Schema, "Please select options from the enum fields", "Elicitation completed")),
		mcp.AddTool(s, &mcp.Tool{Name: "test_elicitation_url", Description: "Asks the user, through the client, to open a URL (URL mode elicitation/create), then says the interaction has completed (notifications/elicitation/complete)"}, d.elicitURL),
		mcp.AddTool(s, &mcp.Tool{Name: "test_url_elicitation_required", Description: "Fails with -32042 (a URL the user must open) until that elicitation has completed, which it announces 50 ms after failing; then succeeds"}, d.urlRequired),
		s.AddTool(&mcp.Tool{Name: "json_schema_2020_12_tool", Description: "Tool with JSON Schema 2020-12 features", InputSchema: schema202012},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				args := string(req.Params.Arguments)
				if args == "" {
					args = "{}"
				}
				return text("JSON Schema 2020-12 tool called with " + args), nil
			}),
		mcp.AddTool(s, &mcp.Tool{Name: "test_reconnection", Description: "Over Streamable HTTP, closes its SSE stream mid-call; the result arrives when the client resumes"}, reconnection),
		mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Adds two numbers; the sum is structured content, described by an output schema"},
			func(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, addResult, error) {
				return nil, addResult{Sum: in.A + in.B}, nil
			}),
		mcp.AddTool(s, &mcp.Tool{Name: "ping_client", Description: "Pings the client (a ping from server to client) and says when it answered"},
			func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
				start := time.Now()
				if err := req.Session.Ping(ctx); err != nil {
					return nil, nil, fmt.Errorf("the client did not answer ping: %w", err)
				}
				return text(fmt.Sprintf("The client answered ping in %v.", time.Since(start).Round(time.Microsecond))), nil, nil
			}),
		mcp.AddTool(s, &mcp.Tool{Name: "add_dynamic_tool", Description: "Adds the tool test_dynamic_tool at run time; sessions are told with notifications/tools/list_changed"},
			func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
				if err := d.addDynamicTool(); err != nil {
					return nil, nil, err
				}
				return text("test_dynamic_tool added"), nil, nil
			}),
	)
}

// addEcho adds echo {message}: one text block holding the message.
func addEcho(s *mcp.Server) error {
	type in struct {
		Message string `json:"message" jsonschema:"the text to echo"`
	}
	return mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes its message as one text block"},
		func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
			return text(a.Message), nil, nil
		})
}

// addDynamicTool adds test_dynamic_tool (again: it is replaced); every
// session is told the tool list changed.
func (d *demo) addDynamicTool() error {
	return constant(d.srv, "test_dynamic_tool", "A tool added at run time (by add_dynamic_tool)",
		text("This tool was added at run time."))
}

type addArgs struct {
	A float64 `json:"a" jsonschema:"the first term"`
	B float64 `json:"b" jsonschema:"the second term"`
}

type addResult struct {
	Sum float64 `json:"sum" jsonschema:"a + b"`
}

// logging sends its three messages through the request's Log, so they
// follow the request (on Streamable HTTP, on the call's own stream).
func logging(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
	msgs := []string{"Tool execution started", "Tool processing data", "Tool execution completed"}
	for i, m := range msgs {
		if i > 0 {
			if err := pause(ctx, step); err != nil {
				return nil, nil, err
			}
		}
		if err := req.Log(ctx, mcp.LevelInfo, "test_tool_with_logging", m); err != nil {
			return nil, nil, err
		}
	}
	return text("Logging test completed: 3 messages sent."), nil, nil
}

// progress reports 0, 50 and 100 of 100 for the request's progress token
// (nothing when it has none), a step apart, then answers, lastPause after
// the last report. That last pause matters to the TypeScript SDK's
// client (1.32): it handles a notification in a microtask but a response
// at once, and forgets a call's progress handler with its response, so a
// last report that reaches it in the same read as the result is dropped
// ("unknown token") and the suite's tools-call-with-progress sees two
// reports, not three. A client process held up longer than the pause (a
// loaded machine) reads both at once: the pause is long for that.
func progress(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
	for i, p := range []float64{0, 50, 100} {
		if err := req.Progress(ctx, p, 100, ""); err != nil {
			return nil, nil, err
		}
		d := step
		if i == 2 {
			d = lastPause
		}
		if err := pause(ctx, d); err != nil {
			return nil, nil, err
		}
	}
	return text("Progress test completed."), nil, nil
}

// lastPause is how long progress waits after its last report.
const lastPause = 250 * time.Millisecond

type samplingArgs struct {
	Prompt string `json:"prompt" jsonschema:"the prompt to send to the client's model"`
}

// sampling asks the client's model (one user message, 100 tokens at most)
// and returns what it said. A client without sampling gets an isError
// result saying so.
func sampling(ctx context.Context, req *mcp.CallToolRequest, in samplingArgs) (*mcp.CallToolResult, any, error) {
	res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{&mcp.TextContent{Text: in.Prompt}}}},
		MaxTokens: 100,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("sampling failed: %w", err)
	}
	return text("LLM response: " + firstText(res.Content)), nil, nil
}

// firstText returns the text of the first text block, or says what there
// was instead.
func firstText(cs []mcp.Content) string {
	for _, c := range cs {
		if t, ok := c.(*mcp.TextContent); ok {
			return t.Text
		}
	}
	return fmt.Sprintf("(no text among %d content blocks)", len(cs))
}

type elicitationArgs struct {
	Message string `json:"message" jsonschema:"the message to show the user"`
}

// elicitationSchema is test_elicitation's form: two required strings.
var elicitationSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"username":{"type":"string","description":"User's response"},` +
	`"email":{"type":"string","description":"User's email address"}},` +
	`"required":["username","email"]}`)

// elicitation asks the user for a username and an email, with the
// caller's message.
func elicitation(ctx context.Context, req *mcp.CallToolRequest, in elicitationArgs) (*mcp.CallToolResult, any, error) {
	res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: in.Message, RequestedSchema: elicitationSchema})
	if err != nil {
		return nil, nil, fmt.Errorf("elicitation failed: %w", err)
	}
	return text("User response: " + outcome(res)), nil, nil
}

// demoURL is the page of the URL mode tools: nothing serves it, and no
// client of the tests opens it.
const demoURL = "http://127.0.0.1:9/authorize"

// elicitURL is test_elicitation_url: a URL mode elicitation, and once the
// user accepts, notifications/elicitation/complete for it before the
// result (the demo's out-of-band interaction ends at once).
func (d *demo) elicitURL(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
	id := fmt.Sprintf("url-%d", d.elicitations.Add(1))
	res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: mcp.ElicitModeURL, ElicitationID: id,
		URL: demoURL + "?id=" + id, Message: "Please authorize the demo in your browser"})
	if err != nil {
		return nil, nil, fmt.Errorf("elicitation failed: %w", err)
	}
	if res.Action == mcp.ElicitAccept {
		if err := req.Session.NotifyElicitationComplete(ctx, id); err != nil {
			return nil, nil, err
		}
	}
	return text("URL elicitation " + id + ": action=" + res.Action), nil, nil
}

// urlRequired is test_url_elicitation_required: per session, the first
// call fails with -32042 naming a URL to open, and 50 ms later the
// session hears that the elicitation has completed; calls after that
// succeed. What a session completed is forgotten when it ends.
func (d *demo) urlRequired(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
	ss := req.Session
	v, seen := d.authorized.LoadOrStore(ss, new(atomic.Bool))
	done := v.(*atomic.Bool)
	if done.Load() {
		return text("Authorized"), nil, nil
	}
	if !seen {
		go func() {
			<-ss.Done()
			d.authorized.Delete(ss)
		}()
	}
	id := fmt.Sprintf("url-%d", d.elicitations.Add(1))
	time.AfterFunc(step, func() {
		done.Store(true)
		// The session may have ended meanwhile: nobody to tell then.
		_ = ss.NotifyElicitationComplete(context.Background(), id)
	})
	return nil, nil, mcp.URLElicitationRequired("", &mcp.ElicitParams{ElicitationID: id,
		URL: demoURL + "?id=" + id, Message: "Please authorize the demo in your browser"})
}

// elicitWith returns a tool without arguments that elicits a form of this
// schema and reports the outcome after prefix.
func elicitWith(schema json.RawMessage, message, prefix string) mcp.ToolHandlerFor[noArgs, any] {
	return func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: message, RequestedSchema: schema})
		if err != nil {
			return nil, nil, fmt.Errorf("elicitation failed: %w", err)
		}
		return text(prefix + ": " + outcome(res)), nil, nil
	}
}

// outcome says what the user did: "action=accept, content={...}" (the
// content's members sorted by name).
func outcome(res *mcp.ElicitResult) string {
	content := []byte("{}")
	if res.Content != nil {
		var err error
		if content, err = json.Marshal(res.Content); err != nil {
			content = []byte(fmt.Sprintf("%q", err.Error()))
		}
	}
	return fmt.Sprintf("action=%s, content=%s", res.Action, content)
}

// sep1034Schema has a default for every primitive type (SEP-1034).
var sep1034Schema = json.RawMessage(`{"type":"object","properties":{` +
	`"name":{"type":"string","description":"User name","default":"John Doe"},` +
	`"age":{"type":"integer","description":"User age","default":30},` +
	`"score":{"type":"number","description":"User score","default":95.5},` +
	`"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},` +
	`"verified":{"type":"boolean","description":"Verification status","default":true}}}`)

// sep1330Schema has the five forms of enum (SEP-1330): untitled and titled
// single-select, the legacy enumNames, untitled and titled multi-select.
var sep1330Schema = json.RawMessage(`{"type":"object","properties":{` +
	`"untitledSingle":{"type":"string","description":"Untitled single-select","enum":["option1","option2","option3"]},` +
	`"titledSingle":{"type":"string","description":"Titled single-select","oneOf":[` +
	`{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},` +
	`"legacyEnum":{"type":"string","description":"Legacy titled enum","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},` +
	`"untitledMulti":{"type":"array","description":"Untitled multi-select","items":{"type":"string","enum":["option1","option2","option3"]}},` +
	`"titledMulti":{"type":"array","description":"Titled multi-select","items":{"anyOf":[` +
	`{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`)

// schema202012 is json_schema_2020_12_tool's input schema, served
// verbatim: the suite checks that $schema, $defs and additionalProperties
// survive (SEP-1613), and the composition (allOf, anyOf), conditional
// (if, then, else) and $anchor keywords too (SEP-2106).
var schema202012 = json.RawMessage(`{` +
	`"$schema":"https://json-schema.org/draft/2020-12/schema",` +
	`"type":"object",` +
	`"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},` +
	`"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},` +
	`"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},` +
	`"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],` +
	`"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},` +
	`"then":{"required":["phone"]},"else":{"required":["email"]},` +
	`"additionalProperties":false}`)

// reconnection is test_reconnection. Over Streamable HTTP the suite
// (server-sse-polling, SEP-1699) expects the server to close the call's
// SSE stream after its priming event, before the result, and to deliver
// the result when the client comes back with GET and Last-Event-ID: the
// tool closes its stream, then answers after a pause. Over stdio there is
// no stream to close: it answers after the pause.
func reconnection(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
	req.CloseSSEStream()
	if err := pause(ctx, 2*step); err != nil {
		return nil, nil, err
	}
	return text("Reconnection test completed."), nil, nil
}
