package demoserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
)

// modernCall is a 2026-07-28 request as the conformance suite sends it:
// params with the _meta of the version, the client and its capabilities
// (caps: sampling, elicitation and roots unless given).
func modernCall(id int, method, params, caps string) string {
	if caps == "" {
		caps = `{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}`
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientInfo":{"name":"suite","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":` + caps + `}`
	p := strings.TrimSuffix(params, "}")
	if p != "{" {
		p += ","
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s%s}}`, id, method, p, meta)
}

// inputAnswer is a response as the test reads it.
type inputAnswer struct {
	Result map[string]json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// inputRequests returns the methods of an input_required result's
// inputRequests by key, and its requestState.
func (a *inputAnswer) inputRequests(t *testing.T) (map[string]string, string) {
	t.Helper()
	if a.Error != nil || string(a.Result["resultType"]) != `"input_required"` {
		t.Fatalf("want an input_required result, got %+v %s", a.Error, a.Result)
	}
	var reqs map[string]struct{ Method string }
	var state string
	if json.Unmarshal(a.Result["inputRequests"], &reqs) != nil || json.Unmarshal(a.Result["requestState"], &state) != nil || state == "" {
		t.Fatalf("inputRequests %s, requestState %s", a.Result["inputRequests"], a.Result["requestState"])
	}
	out := map[string]string{}
	for k, r := range reqs {
		out[k] = r.Method
	}
	return out, state
}

// text returns the text of a complete tools/call result's first block.
func (a *inputAnswer) text(t *testing.T) string {
	t.Helper()
	var content []struct{ Text string }
	if a.Error != nil || string(a.Result["resultType"]) != `"complete"` || json.Unmarshal(a.Result["content"], &content) != nil || len(content) == 0 {
		t.Fatalf("want a complete result with content, got %+v %s", a.Error, a.Result)
	}
	return content[0].Text
}

// Answers the suite sends (its mock responses).
const (
	elicitAlice = `{"action":"accept","content":{"name":"Alice"}}`
	sampledText = `{"role":"assistant","content":{"type":"text","text":"Paris."},"model":"test-model","stopReason":"endTurn"}`
	testRoots   = `{"roots":[{"uri":"file:///test/root","name":"Test Root"}]}`
)

// TestInput_scenarios plays the conformance suite's
// input-required-result scenarios (2026-07-28) against the demo server
// over stdio, round after round, and checks what each expects.
func TestInput_scenarios(t *testing.T) {
	_, c, _, stderr := startStdio(t, build(t), codec.Newline)
	id := 0
	call := func(method, params, caps string) *inputAnswer {
		t.Helper()
		id++
		c.send(modernCall(id, method, params, caps))
		var a inputAnswer
		if raw := c.recv(); json.Unmarshal(raw, &a) != nil {
			t.Fatalf("%s\nstderr: %s", raw, stderr)
		}
		return &a
	}
	tool := func(name, rest string) string { return `{"name":"` + name + `","arguments":{}` + rest + `}` }
	with := func(responses, state string) string {
		s := `,"inputResponses":` + responses
		if state != "" {
			s += `,"requestState":"` + state + `"`
		}
		return s
	}
	single := []struct{ tool, key, method, answer, want string }{
		{"test_input_required_result_elicitation", "user_name", "elicitation/create", elicitAlice, "Hello, Alice!"},
		{"test_input_required_result_sampling", "capital_question", "sampling/createMessage", sampledText, "The model said: Paris."},
		{"test_input_required_result_list_roots", "client_roots", "roots/list", testRoots, "Roots: file:///test/root"},
		{"test_input_required_result_request_state", "confirm", "elicitation/create", `{"action":"accept","content":{"ok":true}}`,
			`state-ok: action=accept, content={"ok":true}`},
	}
	for _, tc := range single {
		reqs, st := call("tools/call", tool(tc.tool, ""), "").inputRequests(t)
		if len(reqs) != 1 || reqs[tc.key] != tc.method {
			t.Errorf("%s: inputRequests %v, want %s: %s", tc.tool, reqs, tc.key, tc.method)
			continue
		}
		if got := call("tools/call", tool(tc.tool, with(`{"`+tc.key+`":`+tc.answer+`}`, st)), "").text(t); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.tool, got, tc.want)
		}
	}

	t.Run("multiple-input-requests", func(t *testing.T) {
		name := "test_input_required_result_multiple_inputs"
		reqs, st := call("tools/call", tool(name, ""), "").inputRequests(t)
		want := map[string]string{"user_name": "elicitation/create", "greeting": "sampling/createMessage", "client_roots": "roots/list"}
		if fmt.Sprint(reqs) != fmt.Sprint(want) {
			t.Fatalf("inputRequests %v, want %v", reqs, want)
		}
		got := call("tools/call", tool(name, with(`{"user_name":`+elicitAlice+`,"greeting":`+sampledText+`,"client_roots":`+testRoots+`}`, st)), "").text(t)
		if want := "Hello, Alice! The model said: Paris. Roots: file:///test/root"; got != want {
			t.Errorf("%q, want %q", got, want)
		}
	})
	t.Run("multi-round", func(t *testing.T) {
		name := "test_input_required_result_multi_round"
		reqs, s1 := call("tools/call", tool(name, ""), "").inputRequests(t)
		if reqs["step1"] == "" || len(reqs) != 1 {
			t.Fatalf("round 1: %v", reqs)
		}
		reqs, s2 := call("tools/call", tool(name, with(`{"step1":`+elicitAlice+`}`, s1)), "").inputRequests(t)
		if reqs["step2"] == "" || len(reqs) != 1 || s2 == s1 {
			t.Fatalf("round 2: %v (new state: %t)", reqs, s2 != s1)
		}
		if got := call("tools/call", tool(name, with(`{"step2":{"action":"accept","content":{"color":"blue"}}}`, s2)), "").text(t); got != "Alice likes blue" {
			t.Errorf("round 3: %q", got)
		}
	})
	t.Run("missing-input-response, ignore-extra-params", func(t *testing.T) {
		name := "test_input_required_result_elicitation"
		if reqs, _ := call("tools/call", tool(name, with(`{"wrong_key":{"action":"accept","content":{"data":"wrong"}}}`, "")), "").inputRequests(t); reqs["user_name"] == "" {
			t.Errorf("not asked again: %v", reqs)
		}
		extra := `{"user_name":` + elicitAlice + `,"unknown_extra_key":{"action":"accept","content":{"foo":"bar"}}}`
		if got := call("tools/call", tool(name, with(extra, "")), "").text(t); got != "Hello, Alice!" {
			t.Errorf("with extra answers: %q", got)
		}
	})
	t.Run("validate-input, tampered-state", func(t *testing.T) {
		for _, rest := range []string{with(`{"user_name":12345}`, ""), `,"inputResponses":null`} {
			if a := call("tools/call", tool("test_input_required_result_elicitation", rest), ""); a.Error == nil || a.Error.Code != -32602 {
				t.Errorf("%s: want -32602, got %+v %s", rest, a.Error, a.Result)
			}
		}
		name := "test_input_required_result_tampered_state"
		_, st := call("tools/call", tool(name, ""), "").inputRequests(t)
		a := call("tools/call", tool(name, with(`{"confirm":{"action":"accept","content":{"ok":true}}}`, st+"-TAMPERED")), "")
		if a.Error == nil || a.Error.Code != -32602 {
			t.Errorf("tampered: want -32602, got %+v %s", a.Error, a.Result)
		}
	})
	t.Run("capability-check", func(t *testing.T) {
		reqs, _ := call("tools/call", tool("test_input_required_result_capabilities", ""), `{"sampling":{}}`).inputRequests(t)
		if len(reqs) != 1 || reqs["capital_question"] != "sampling/createMessage" {
			t.Errorf("inputRequests %v, want the sampling one alone", reqs)
		}
	})
	t.Run("non-tool-request, unsupported-methods", func(t *testing.T) {
		get := `{"name":"test_input_required_result_prompt"}`
		reqs, st := call("prompts/get", get, "").inputRequests(t)
		if reqs["user_context"] != "elicitation/create" {
			t.Fatalf("inputRequests %v", reqs)
		}
		a := call("prompts/get", strings.TrimSuffix(get, "}")+with(`{"user_context":{"action":"accept","content":{"context":"tests"}}}`, st)+"}", "")
		if a.Error != nil || !strings.Contains(string(a.Result["messages"]), "Use this context: tests") {
			t.Errorf("round 2: %+v %s", a.Error, a.Result)
		}
		for _, m := range []string{"tools/list", "prompts/list"} {
			if a := call(m, `{}`, ""); a.Error != nil || string(a.Result["resultType"]) != `"complete"` {
				t.Errorf("%s: %+v %s", m, a.Error, a.Result["resultType"])
			}
		}
	})
}

// TestInput_olderVersions calls the input-required tools in a session of
// 2025-11-25: each question is a request to the client (mcp.Client's
// handlers answer), and the call completes in one round trip.
func TestInput_olderVersions(t *testing.T) {
	cs, rec := connect(t, mcp.Version20251125)
	ctx := testCtx(t)
	for _, tc := range []struct{ tool, want, asked string }{
		{"test_input_required_result_elicitation", "Hello, (none)!", "elicitation: What is your name?"},
		{"test_input_required_result_sampling", "The model said: a test answer", `sampling: maxTokens=100 messages=1 user "What is the capital of France?"`},
		{"test_input_required_result_request_state", `state-ok: action=accept, content={"email":"ada@example.com","username":"ada"}`, "elicitation: Please confirm"},
		{"test_input_required_result_multi_round", "(none) likes (none)", "elicitation: Step 1"},
		{"test_input_required_result_capabilities", "The client answered 2 questions.", "sampling: "},
	} {
		res, err := cs.CallTool(ctx, tc.tool, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		if got := textOf(t, res); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.tool, got, tc.want)
		}
		// The client's handler ran before it answered, so before the result.
		if !slices.ContainsFunc(rec.snapshot(), func(ev string) bool { return strings.HasPrefix(ev, tc.asked) }) {
			t.Errorf("%s: the client was not asked %q: %q", tc.tool, tc.asked, rec.snapshot())
		}
	}
}
