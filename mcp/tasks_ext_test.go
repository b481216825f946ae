package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/principal"
	"github.com/mcpwire/mcpwire/mcp"
)

// The tasks extension (2026-07-28), end to end over raw JSON-RPC: the
// tools of taskServer, called with a _meta that declares the extension
// (extMeta) or not (noExtMeta).

var (
	extMeta   = modernMeta(`{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`)
	noExtMeta = modernMeta(`{"elicitation":{}}`)
)

// tasksInfoMeta is the _meta of extServer's results.
const tasksInfoMeta = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"tasks","version":"1"}}`

// extServer is taskServer with four more tools: "ask" (optional tasks)
// asks the user two questions at once and repeats the answers; "boom"
// (optional) panics; "hold" (optional) runs until its context ends;
// "late" asks the user's name through multi-round-trip
// requests, then leaves the greeting to a task (StartTask).
func extServer(t *testing.T, o *mcp.TaskOptions) (*mcp.Server, chan struct{}) {
	t.Helper()
	srv, release := taskServer(t, o, 0)
	addExtTools(t, srv)
	return srv, release
}

func addExtTools(t *testing.T, srv *mcp.Server) {
	t.Helper()
	opt := &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	form := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)
	must(t, srv.AddTool(&mcp.Tool{Name: "ask", Execution: opt}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, err := req.Inputs(ctx, mcp.Input{Key: "first", Elicit: &mcp.ElicitParams{Message: "1?", RequestedSchema: form}},
			mcp.Input{Elicit: &mcp.ElicitParams{Message: "2?", RequestedSchema: form}})
		if err != nil {
			return nil, err
		}
		return textResult(fmt.Sprintf("%v and %v", a[0].Elicit.Content["name"], a[1].Elicit.Content["name"])), nil
	}))
	must(t, srv.AddTool(&mcp.Tool{Name: "boom", Execution: opt}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("boom")
	}))
	must(t, srv.AddTool(&mcp.Tool{Name: "hold", Execution: opt}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}))
	must(t, srv.AddTool(&mcp.Tool{Name: "late"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "Name?", RequestedSchema: form})
		if err != nil {
			return nil, err
		}
		return mcp.StartTask(ctx, req, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			where := "the call"
			if mcp.TaskIDFromContext(ctx) != "" {
				where = "a task"
			}
			return textResult(fmt.Sprintf("Hello, %v, from %s of %s", r.Content["name"], where, req.Session.ProtocolVersion())), nil
		})
	}))
}

// obj decodes a JSON object.
func obj(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return m
}

// callParams are the params of tools/call of tool with meta.
func callParams(tool, meta string) string {
	return `{"name":"` + tool + `","arguments":{},"_meta":` + meta + `}`
}

// idParams are the params of tasks/get or tasks/cancel of task id.
func idParams(id, meta string) string { return `{"taskId":"` + id + `","_meta":` + meta + `}` }

// startExt calls tool with the extension declared and returns the task
// it was answered with, checked to be the extension's flat
// CreateTaskResult.
func startExt(t *testing.T, p *statelessPeer, tool string) string {
	t.Helper()
	got := obj(t, p.call("tools/call", callParams(tool, extMeta)))
	for _, k := range []string{"task", "ttl", "pollInterval", "result", "error", "inputRequests", "requestState"} {
		if _, ok := got[k]; ok {
			t.Errorf("CreateTaskResult has %q: %v", k, got)
		}
	}
	id, _ := got["taskId"].(string)
	ttl, _ := got["ttlMs"].(float64)
	poll, _ := got["pollIntervalMs"].(float64)
	if got["resultType"] != "task" || id == "" || got["status"] != "working" || ttl != 300000 ||
		poll <= 0 || got["createdAt"] == nil || got["lastUpdatedAt"] == nil {
		t.Fatalf("tools/call of %s: %v", tool, got)
	}
	return id
}

// awaitStatus polls tasks/get until the task has status want or, for a
// terminal want, any terminal status; it returns the last answer.
func awaitStatus(t *testing.T, p *statelessPeer, id, meta string, want mcp.TaskStatus) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := obj(t, p.call("tasks/get", idParams(id, meta)))
		s := mcp.TaskStatus(fmt.Sprint(got["status"]))
		if s == want || (want.Terminal() && s.Terminal()) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s: still %v, want %s", id, got, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestTasksExt_lifecycle checks the extension's task from creation to
// its end, over stdio and in process: the flat CreateTaskResult, tasks/get
// while working, the result inlined once completed (a tool's error
// completes it too: isError), a protocol error or a panic failing it,
// cancellation and its idempotent empty answer, an unknown task id, the
// methods the extension removed, and server/discover's declaration.
func TestTasksExt_lifecycle(t *testing.T) {
	for _, transport := range []string{"stdio", "inprocess"} {
		t.Run(transport, func(t *testing.T) {
			srv, release := extServer(t, &mcp.TaskOptions{PollInterval: 20 * time.Millisecond})
			p := newStatelessPeer(t, srv, transport)

			caps := obj(t, p.call("server/discover", `{"_meta":`+extMeta+`}`))["capabilities"].(map[string]any)
			if _, ok := caps["extensions"].(map[string]any)[mcp.TasksExtension]; !ok || caps["tasks"] != nil {
				t.Errorf("server/discover capabilities: %v", caps)
			}

			id := startExt(t, p, "wait")
			got := obj(t, p.call("tasks/get", idParams(id, extMeta)))
			if got["resultType"] != "complete" || got["taskId"] != id || got["status"] != "working" || got["result"] != nil {
				t.Errorf("tasks/get while working: %v", got)
			}
			close(release)
			done := awaitStatus(t, p, id, extMeta, mcp.TaskCompleted)
			res, _ := done["result"].(map[string]any)
			if done["status"] != "completed" || res == nil || fmt.Sprint(res["content"]) != "[map[text:done type:text]]" || res["_meta"] != nil {
				t.Errorf("tasks/get once completed: %v", done)
			}

			// A tool's error completes the task; a protocol error, or a
			// panic, fails it.
			failed := awaitStatus(t, p, startExt(t, p, "fail"), extMeta, mcp.TaskCompleted)
			if res, _ := failed["result"].(map[string]any); failed["status"] != "completed" || res["isError"] != true {
				t.Errorf("a tool error: %v", failed)
			}
			for tool, code := range map[string]float64{"protocol": -32042, "boom": -32603} {
				got := awaitStatus(t, p, startExt(t, p, tool), extMeta, mcp.TaskFailed)
				e, _ := got["error"].(map[string]any)
				if got["status"] != "failed" || e["code"] != code || got["result"] != nil {
					t.Errorf("%s: %v", tool, got)
				}
			}

			// Cancellation: an empty answer, then and once ended.
			id = startExt(t, p, "hold")
			ack := canon(t, `{"resultType":"complete",`+tasksInfoMeta+`}`)
			for range 2 {
				if got := p.call("tasks/cancel", idParams(id, extMeta)); got != ack {
					t.Errorf("tasks/cancel: got %s, want %s", got, ack)
				}
			}
			if got := awaitStatus(t, p, id, extMeta, mcp.TaskCancelled); got["status"] != "cancelled" {
				t.Errorf("after tasks/cancel: %v", got)
			}

			unknown := canon(t, `{"code":-32602,"message":"Failed to retrieve task: Task not found","data":null}`)
			for _, m := range []string{"tasks/get", "tasks/cancel"} {
				if got := p.call(m, idParams("nope", extMeta)); got != unknown {
					t.Errorf("%s of an unknown task: %s", m, got)
				}
			}
			for _, m := range []string{"tasks/result", "tasks/list"} {
				if got := obj(t, p.call(m, idParams(id, extMeta))); got["code"] != float64(-32601) {
					t.Errorf("%s: %v", m, got)
				}
			}
		})
	}
}

// TestTasksExt_undeclared checks a request that does not declare the
// extension: tasks/get, update and cancel are -32021 naming it, as is a
// tool that requires tasks; a tool that supports them runs as a plain
// call (a task member of the params is ignored); and a server without
// tasks declares no extension and answers -32601.
func TestTasksExt_undeclared(t *testing.T) {
	srv, _ := extServer(t, &mcp.TaskOptions{})
	p := newStatelessPeer(t, srv, "inprocess")
	missing := canon(t, `{"code":-32021,"message":"Missing required client capability: io.modelcontextprotocol/tasks",`+
		`"data":{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}`)
	for _, m := range []string{"tasks/get", "tasks/cancel"} {
		if got := p.call(m, idParams("x", noExtMeta)); got != missing {
			t.Errorf("%s: got %s, want %s", m, got, missing)
		}
	}
	if got := p.call("tasks/update", `{"taskId":"x","inputResponses":{},"_meta":`+noExtMeta+`}`); got != missing {
		t.Errorf("tasks/update: got %s", got)
	}
	if got := p.call("tools/call", callParams("must", noExtMeta)); got != missing {
		t.Errorf("a tool requiring tasks: got %s", got)
	}
	plain := canon(t, `{"resultType":"complete",`+tasksInfoMeta+`,"content":[{"type":"text","text":"it broke"}],"isError":true}`)
	if got := p.call("tools/call", `{"name":"fail","arguments":{},"task":{"ttl":1000},"_meta":`+noExtMeta+`}`); got != plain {
		t.Errorf("a tool supporting tasks:\n got %s\nwant %s", got, plain)
	}

	bare := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	q := newStatelessPeer(t, bare, "inprocess")
	if caps := obj(t, q.call("server/discover", `{"_meta":`+extMeta+`}`))["capabilities"].(map[string]any); caps["extensions"] != nil {
		t.Errorf("without tasks, server/discover declares %v", caps)
	}
	if got := obj(t, q.call("tasks/get", idParams("x", extMeta))); got["code"] != float64(-32601) {
		t.Errorf("tasks/get without tasks: %v", got)
	}
}

// TestTasksExt_inputRequests checks a tool running as a task that asks
// two questions at once: the task is input_required with both, keyed for
// the task's lifetime; tasks/update answers them one at a time (the
// answered one leaves inputRequests, the task stays input_required),
// ignores keys that are not outstanding, refuses an answer that is not a
// valid result (-32602); once both are answered the tool goes on with
// them.
func TestTasksExt_inputRequests(t *testing.T) {
	srv, _ := extServer(t, &mcp.TaskOptions{PollInterval: time.Hour}) // woken by tasks/update, not by polling
	p := newStatelessPeer(t, srv, "inprocess")
	id := startExt(t, p, "ask")
	got := awaitStatus(t, p, id, extMeta, mcp.TaskInputRequired)
	reqs, _ := got["inputRequests"].(map[string]any)
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"first-1", "input-2"}) || reqs["first-1"].(map[string]any)["method"] != "elicitation/create" {
		t.Fatalf("tasks/get: %v", got)
	}
	update := func(responses string) string {
		return p.call("tasks/update", `{"taskId":"`+id+`","inputResponses":`+responses+`,"_meta":`+extMeta+`}`)
	}
	ack := canon(t, `{"resultType":"complete",`+tasksInfoMeta+`}`)
	if got := update(`{"first-1":{"action":"maybe"}}`); !strings.Contains(got, `"code":-32602`) || !strings.Contains(got, `"key":"first-1"`) {
		t.Errorf("an invalid answer: %s", got)
	}
	for _, r := range []string{`{"unknown":{"x":1}}`, `{"first-1":{"action":"accept","content":{"name":"Ann"}}}`} {
		if got := update(r); got != ack {
			t.Errorf("tasks/update %s: got %s, want %s", r, got, ack)
		}
	}
	got = obj(t, p.call("tasks/get", idParams(id, extMeta)))
	if reqs, _ := got["inputRequests"].(map[string]any); got["status"] != "input_required" || len(reqs) != 1 || reqs["input-2"] == nil {
		t.Fatalf("after one answer: %v", got)
	}
	if got := update(`{"input-2":{"action":"accept","content":{"name":"Bob"}}}`); got != ack {
		t.Errorf("the second answer: %s", got)
	}
	done := awaitStatus(t, p, id, extMeta, mcp.TaskCompleted)
	if res, _ := done["result"].(map[string]any); done["status"] != "completed" || fmt.Sprint(res["content"]) != "[map[text:Ann and Bob type:text]]" {
		t.Errorf("completed: %v", done)
	}
}

// TestTasksExt_startTaskAfterInputRounds checks StartTask: a handler
// gathers input through multi-round-trip requests (no task yet), then
// hands the rest to a task, whose result carries that input; without the
// extension the same handler answers at once.
func TestTasksExt_startTaskAfterInputRounds(t *testing.T) {
	srv, _ := extServer(t, &mcp.TaskOptions{PollInterval: 20 * time.Millisecond})
	p := newStatelessPeer(t, srv, "inprocess")
	answer := `{"input-1":{"action":"accept","content":{"name":"Alice"}}}`
	for _, meta := range []string{extMeta, noExtMeta} {
		first := obj(t, p.call("tools/call", callParams("late", meta)))
		state, _ := first["requestState"].(string)
		if first["resultType"] != "input_required" || state == "" || first["taskId"] != nil {
			t.Fatalf("round 1: %v", first)
		}
		second := obj(t, p.call("tools/call", `{"name":"late","arguments":{},"inputResponses":`+answer+`,"requestState":"`+state+`","_meta":`+meta+`}`))
		want := "[map[text:Hello, Alice, from a task of 2026-07-28 type:text]]"
		if meta == noExtMeta {
			if second["resultType"] != "complete" || fmt.Sprint(second["content"]) != "[map[text:Hello, Alice, from the call of 2026-07-28 type:text]]" {
				t.Errorf("without the extension, round 2: %v", second)
			}
			continue
		}
		id, _ := second["taskId"].(string)
		if second["resultType"] != "task" || id == "" || second["requestState"] != nil || second["inputRequests"] != nil {
			t.Fatalf("round 2: %v", second)
		}
		done := awaitStatus(t, p, id, meta, mcp.TaskCompleted)
		if res, _ := done["result"].(map[string]any); done["status"] != "completed" || fmt.Sprint(res["content"]) != want {
			t.Errorf("the task: %v", done)
		}
	}
}

// TestTasksExt_boundToPrincipal checks that a task is reached by its id
// from any connection and any server sharing the task store, by the
// principal that made it alone: another one's tasks/get is -32602. The
// tool runs on the first server; its input requests are answered on the
// second, and reach it through the store.
func TestTasksExt_boundToPrincipal(t *testing.T) {
	store := mcp.NewMemoryTaskStore()
	as := func(who string) *statelessPeer {
		ctx := principal.With(context.Background(), who)
		srv := mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "1"}, &mcp.ServerOptions{
			Tasks: &mcp.TaskOptions{Store: store, PollInterval: 10 * time.Millisecond}, Conn: &conn.Options{Context: ctx}})
		addExtTools(t, srv)
		return newStatelessPeer(t, srv, "inprocess")
	}
	alice, alice2, bob := as("alice"), as("alice"), as("bob")
	id := startExt(t, alice, "ask")
	awaitStatus(t, alice2, id, extMeta, mcp.TaskInputRequired)
	if got := obj(t, bob.call("tasks/get", idParams(id, extMeta))); got["code"] != float64(codec.CodeInvalidParams) {
		t.Errorf("another principal's tasks/get: %v", got)
	}
	alice2.call("tasks/update", `{"taskId":"`+id+`","inputResponses":{"first-1":{"action":"accept","content":{"name":"A"}},`+
		`"input-2":{"action":"accept","content":{"name":"B"}}},"_meta":`+extMeta+`}`)
	if done := awaitStatus(t, alice2, id, extMeta, mcp.TaskCompleted); done["status"] != "completed" {
		t.Errorf("answered on another server: %v", done)
	}
}
