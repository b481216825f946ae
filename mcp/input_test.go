package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

// inputServer has handlers that ask their client, in each way a handler
// can: one question with a key of its own, one after another over
// rounds (carrying a state of their own), several at once, from a prompt
// and from a resource.
func inputServer(t *testing.T, opts *mcp.ServerOptions) *mcp.Server {
	t.Helper()
	if opts == nil {
		opts = &mcp.ServerOptions{}
	}
	opts.CompletionHandler = func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
		// Not a method that may answer input_required: the question fails.
		if _, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "no"}); !errors.Is(err, mcp.ErrNotSupported) {
			return nil, fmt.Errorf("want ErrNotSupported, got %v", err)
		}
		return &mcp.CompleteResult{Completion: mcp.CompletionValues{Values: []string{"cannot ask"}}}, nil
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "srv", Version: "1.0"}, opts)
	nameForm := map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}}
	colorForm := map[string]any{"type": "object", "properties": map[string]any{"color": map[string]any{"type": "string"}}, "required": []string{"color"}}
	must(t, srv.AddTool(&mcp.Tool{Name: "greet"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, err := req.Inputs(ctx, mcp.Input{Key: "user_name", Elicit: &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: nameForm}})
		if err != nil {
			return nil, err
		}
		return textResult(fmt.Sprintf("Hello, %v!", a[0].Elicit.Content["name"])), nil
	}))
	must(t, srv.AddTool(&mcp.Tool{Name: "rounds"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		carried := string(req.State())
		name, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "Step 1", RequestedSchema: nameForm})
		if err != nil {
			return nil, err
		}
		req.SetState([]byte("after step 1"))
		color, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "Step 2", RequestedSchema: colorForm})
		if err != nil {
			return nil, err
		}
		return textResult(fmt.Sprintf("%v likes %v (state %q)", name.Content["name"], color.Content["color"], carried)), nil
	}))
	must(t, srv.AddTool(&mcp.Tool{Name: "all"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, err := req.Inputs(ctx,
			mcp.Input{Key: "user_name", Elicit: &mcp.ElicitParams{Message: "Name?", RequestedSchema: nameForm}},
			mcp.Input{Key: "greeting", Sample: &mcp.CreateMessageParams{MaxTokens: 50,
				Messages: []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{&mcp.TextContent{Text: "Generate a greeting"}}}}}},
			mcp.Input{Key: "client_roots", Roots: true})
		if err != nil {
			return nil, err
		}
		return textResult(fmt.Sprintf("%v %s %s", a[0].Elicit.Content["name"],
			a[1].Sample.Content[0].(*mcp.TextContent).Text, a[2].Roots.Roots[0].URI)), nil
	}))
	must(t, srv.AddPrompt(&mcp.Prompt{Name: "asks"}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		r, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "Context?"})
		if err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: r.Action}}}}, nil
	}))
	must(t, srv.AddResource(&mcp.Resource{URI: "file:///asks", Name: "asks"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		r, err := req.Roots(ctx)
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Text: r.Roots[0].URI}}}, nil
	}))
	return srv
}

// allCaps is the _meta of a 2026-07-28 request whose client declares
// sampling, elicitation and roots.
var allCaps = modernMeta(`{"sampling":{},"elicitation":{},"roots":{}}`)

// Answers as a client sends them.
const (
	aliceAnswer = `{"action":"accept","content":{"name":"Alice"}}`
	blueAnswer  = `{"action":"accept","content":{"color":"blue"}}`
	sampled     = `{"role":"assistant","content":{"type":"text","text":"Hi there"},"model":"m","stopReason":"endTurn"}`
	rootsAnswer = `{"roots":[{"uri":"file:///r","name":"R"}]}`
)

// inputRequired splits an input_required result into its requestState
// and the rest, canonical.
func inputRequired(t *testing.T, got string) (rest, state string) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(got), &m); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if string(m["resultType"]) != `"input_required"` {
		t.Fatalf("want an input_required result, got %s", got)
	}
	if err := json.Unmarshal(m["requestState"], &state); err != nil || state == "" {
		t.Fatalf("no requestState in %s", got)
	}
	delete(m, "requestState")
	b, err := json.Marshal(m)
	must(t, err)
	return canon(t, string(b)), state
}

// retry is the params of a request's retry: the first params with the
// answers and the state.
func retry(params, responses, state string) string {
	p := strings.TrimSuffix(params, "}")
	if responses != "" {
		p += `,"inputResponses":` + responses
	}
	if state != "" {
		p += `,"requestState":"` + state + `"`
	}
	return p + "}"
}

// TestInput_rounds runs multi-round-trip requests of 2026-07-28 over
// stdio and in process, round after round, as the conformance suite's
// input-required-result scenarios do: one question, several at once,
// several rounds carrying earlier answers and the handler's state, a
// prompt and a resource that ask, answers missing, extra or malformed.
func TestInput_rounds(t *testing.T) {
	const form = `"requestedSchema":{"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}`
	greet := `{"name":"greet","arguments":{},"_meta":` + allCaps + `}`
	greetAsks := canon(t, `{"resultType":"input_required",`+serverInfoMeta+`,"inputRequests":{"user_name":{"method":"elicitation/create",`+
		`"params":{"message":"What is your name?",`+form+`}}}}`)
	hello := canon(t, `{"resultType":"complete",`+serverInfoMeta+`,"content":[{"type":"text","text":"Hello, Alice!"}]}`)
	for _, transport := range []string{"stdio", "inprocess"} {
		t.Run(transport, func(t *testing.T) {
			p := newStatelessPeer(t, inputServer(t, nil), transport)

			rest, state := inputRequired(t, p.call("tools/call", greet))
			if rest != greetAsks {
				t.Fatalf("round 1:\n got %s\nwant %s", rest, greetAsks)
			}
			if got := p.call("tools/call", retry(greet, `{"user_name":`+aliceAnswer+`}`, state)); got != hello {
				t.Errorf("round 2:\n got %s\nwant %s", got, hello)
			}
			// The state opens as often as it is presented, until it expires.
			if got := p.call("tools/call", retry(greet, `{"user_name":`+aliceAnswer+`}`, state)); got != hello {
				t.Errorf("round 2 again:\n got %s\nwant %s", got, hello)
			}
			t.Run("answers without requestState, extra ones ignored", func(t *testing.T) {
				got := p.call("tools/call", retry(greet, `{"user_name":`+aliceAnswer+`,"extra":{"action":"accept","content":{"x":1}}}`, ""))
				if got != hello {
					t.Errorf("got %s\nwant %s", got, hello)
				}
			})
			t.Run("a missing answer is asked again", func(t *testing.T) {
				rest, _ := inputRequired(t, p.call("tools/call", retry(greet, `{"wrong_key":{"action":"accept","content":{"data":"x"}}}`, "")))
				if rest != greetAsks {
					t.Errorf("got %s\nwant %s", rest, greetAsks)
				}
			})
			t.Run("multi-round", func(t *testing.T) {
				rounds := `{"name":"rounds","arguments":{},"_meta":` + allCaps + `}`
				rest, s1 := inputRequired(t, p.call("tools/call", rounds))
				if !strings.Contains(rest, `"input-1":{"method":"elicitation/create","params":{"message":"Step 1"`) {
					t.Fatalf("round 1: %s", rest)
				}
				rest, s2 := inputRequired(t, p.call("tools/call", retry(rounds, `{"input-1":`+aliceAnswer+`}`, s1)))
				if !strings.Contains(rest, `"inputRequests":{"input-2":{"method":"elicitation/create","params":{"message":"Step 2"`) || s2 == s1 {
					t.Fatalf("round 2: %s (state changed: %t)", rest, s2 != s1)
				}
				want := canon(t, `{"resultType":"complete",`+serverInfoMeta+`,"content":[{"type":"text","text":"Alice likes blue (state \"after step 1\")"}]}`)
				if got := p.call("tools/call", retry(rounds, `{"input-2":`+blueAnswer+`}`, s2)); got != want {
					t.Errorf("round 3:\n got %s\nwant %s", got, want)
				}
				// Without the state, the first answer is lost: asked again.
				rest, _ = inputRequired(t, p.call("tools/call", retry(rounds, `{"input-2":`+blueAnswer+`}`, "")))
				if !strings.Contains(rest, `"input-1"`) {
					t.Errorf("round 3 without state: %s", rest)
				}
			})
			t.Run("several questions in one round", func(t *testing.T) {
				all := `{"name":"all","_meta":` + allCaps + `}`
				rest, st := inputRequired(t, p.call("tools/call", all))
				want := canon(t, `{"resultType":"input_required",`+serverInfoMeta+`,"inputRequests":{`+
					`"user_name":{"method":"elicitation/create","params":{"message":"Name?",`+form+`}},`+
					`"greeting":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Generate a greeting"}}],"maxTokens":50}},`+
					`"client_roots":{"method":"roots/list","params":{}}}}`)
				if rest != want {
					t.Fatalf("round 1:\n got %s\nwant %s", rest, want)
				}
				// Two of three answered: the third is asked again.
				rest, st2 := inputRequired(t, p.call("tools/call", retry(all, `{"user_name":`+aliceAnswer+`,"greeting":`+sampled+`}`, st)))
				if !strings.Contains(rest, `"inputRequests":{"client_roots":{"method":"roots/list","params":{}}}`) {
					t.Fatalf("round 2: %s", rest)
				}
				want = canon(t, `{"resultType":"complete",`+serverInfoMeta+`,"content":[{"type":"text","text":"Alice Hi there file:///r"}]}`)
				if got := p.call("tools/call", retry(all, `{"client_roots":`+rootsAnswer+`}`, st2)); got != want {
					t.Errorf("round 3:\n got %s\nwant %s", got, want)
				}
			})
			t.Run("prompts/get and resources/read", func(t *testing.T) {
				get := `{"name":"asks","_meta":` + allCaps + `}`
				_, st := inputRequired(t, p.call("prompts/get", get))
				want := canon(t, `{"resultType":"complete",`+serverInfoMeta+`,"messages":[{"role":"user","content":{"type":"text","text":"accept"}}]}`)
				if got := p.call("prompts/get", retry(get, `{"input-1":`+aliceAnswer+`}`, st)); got != want {
					t.Errorf("prompts/get:\n got %s\nwant %s", got, want)
				}
				read := `{"uri":"file:///asks","_meta":` + allCaps + `}`
				rest, st := inputRequired(t, p.call("resources/read", read))
				if strings.Contains(rest, "ttlMs") {
					t.Errorf("an input_required result is not cacheable: %s", rest)
				}
				want = canon(t, `{"resultType":"complete","ttlMs":0,"cacheScope":"private",`+serverInfoMeta+`,"contents":[{"uri":"file:///asks","text":"file:///r"}]}`)
				if got := p.call("resources/read", retry(read, `{"input-1":`+rootsAnswer+`}`, st)); got != want {
					t.Errorf("resources/read:\n got %s\nwant %s", got, want)
				}
			})
			t.Run("errors", func(t *testing.T) {
				_, st := inputRequired(t, p.call("tools/call", greet))
				other := `{"name":"greet","arguments":{"x":1},"_meta":` + allCaps + `}`
				refused := func(reason, msg string) string {
					return canon(t, `{"code":-32602,"message":"Invalid params: requestState `+msg+`; send the request again without requestState and inputResponses",`+
						`"data":{"field":"requestState","reason":"`+reason+`"}}`)
				}
				foreign := inputServer(t, nil) // a key of its own
				fp := newStatelessPeer(t, foreign, transport)
				for _, tc := range []struct{ name, method, params, want string }{
					{"tampered", "tools/call", retry(greet, `{"user_name":`+aliceAnswer+`}`, st+"-TAMPERED"),
						refused("malformed", "is malformed")},
					{"a bit flipped", "tools/call", retry(greet, `{"user_name":`+aliceAnswer+`}`, flip(st)),
						refused("tampered", "failed its integrity check")},
					{"another request's", "tools/call", retry(other, `{"user_name":`+aliceAnswer+`}`, st),
						refused("wrongRequest", "was issued for another request")},
					{"another method's", "prompts/get", retry(`{"name":"asks","_meta":`+allCaps+`}`, `{}`, st),
						refused("wrongRequest", "was issued for another request")},
					{"requestState not a string", "tools/call", `{"name":"greet","requestState":7,"_meta":` + allCaps + `}`,
						canon(t, `{"code":-32602,"message":"Invalid params: requestState must be a string","data":null}`)},
					{"inputResponses null", "tools/call", `{"name":"greet","inputResponses":null,"_meta":` + allCaps + `}`,
						canon(t, `{"code":-32602,"message":"Invalid params: inputResponses must be an object whose members are the results of the inputRequests","data":null}`)},
					{"an answer not an object", "tools/call", `{"name":"greet","inputResponses":{"user_name":12345},"_meta":` + allCaps + `}`,
						canon(t, `{"code":-32602,"message":"Invalid params: inputResponses[\"user_name\"] must be an object (the result of that input request)","data":{"field":"inputResponses","key":"user_name"}}`)},
					{"an answer of another method", "tools/call", `{"name":"greet","inputResponses":{"user_name":` + sampled + `},"_meta":` + allCaps + `}`,
						canon(t, `{"code":-32602,"message":"Invalid params: inputResponses[\"user_name\"] is not a valid elicitation/create result: action must be \"accept\", \"decline\" or \"cancel\"","data":{"field":"inputResponses","key":"user_name"}}`)},
					{"a capability not declared", "tools/call", `{"name":"greet","_meta":` + modernMeta(`{"sampling":{}}`) + `}`,
						canon(t, `{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"elicitation":{}}}}`)},
					{"a method that cannot ask", "completion/complete",
						`{"ref":{"type":"ref/prompt","name":"asks"},"argument":{"name":"a","value":""},"_meta":` + allCaps + `}`,
						canon(t, `{"resultType":"complete",`+serverInfoMeta+`,"completion":{"values":["cannot ask"]}}`)},
				} {
					if got := p.call(tc.method, tc.params); got != tc.want {
						t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
					}
				}
				want := refused("unknownKey", "was not issued by this server or its key has been retired")
				if got := fp.call("tools/call", retry(greet, `{"user_name":`+aliceAnswer+`}`, st)); got != want {
					t.Errorf("another server's:\n got %s\nwant %s", got, want)
				}
			})
		})
	}
}

// flip returns the token s with one bit of its last byte but one
// changed (base64url: a different byte, same length).
func flip(s string) string {
	b := []byte(s)
	i := len(b) - 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}
