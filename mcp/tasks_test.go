package mcp_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
)

// taskServer has tasks and three tools: "wait" (optional tasks) runs
// until release is closed or its context ends; "fail" (optional) fails;
// "plain" forbids tasks; "must" requires them.
func taskServer(t *testing.T, o *mcp.TaskOptions, pageSize int) (*mcp.Server, chan struct{}) {
	t.Helper()
	release := make(chan struct{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "1"}, &mcp.ServerOptions{Tasks: o, PageSize: pageSize})
	opt := &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	add := func(name string, ex *mcp.ToolExecution, h mcp.ToolHandler) {
		if err := srv.AddTool(&mcp.Tool{Name: name, Execution: ex}, h); err != nil {
			t.Fatal(err)
		}
	}
	add("wait", opt, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-release:
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	add("fail", opt, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("it broke")
	})
	add("protocol", opt, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, codec.NewError(-32042, "custom failure")
	})
	add("plain", nil, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "plain"}}}, nil
	})
	add("must", &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "must"}}}, nil
	})
	return srv, release
}

// tasks2025 are the options of the clients of the tasks tests: tasks
// as a request param are of 2025-11-25 (2026-07-28 moved them to an
// extension), and the default version is 2026-07-28.
var tasks2025 = &mcp.ClientOptions{ProtocolVersion: mcp.Version20251125}

func ctx10(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// wantCode checks that err is a JSON-RPC error with code c.
func wantCode(t *testing.T, what string, err error, c codec.Code) {
	t.Helper()
	var ce *codec.Error
	if !errors.As(err, &ce) || ce.Code != c {
		t.Fatalf("%s: got %v, want error %d", what, err, c)
	}
}

// In a synctest bubble: synctest.Wait proves tasks/result is still
// waiting, where a 50 ms wait proved nothing on a loaded machine.
func TestTaskCreatePollResult(t *testing.T) {
	synctest.Test(t, testTaskCreatePollResult)
}

func testTaskCreatePollResult(t *testing.T) {
	srv, release := taskServer(t, &mcp.TaskOptions{PollInterval: 20 * time.Millisecond}, 0)
	cs := connect(t, srv, mcp.NewClient(nil, tasks2025))
	ctx := ctx10(t)
	tc := cs.InitializeResult().Capabilities.Tasks
	if _, ok := tc["requests"].(map[string]any)["tools"].(map[string]any)["call"]; !ok || tc["list"] == nil || tc["cancel"] == nil {
		t.Fatalf("tasks capability %v", tc)
	}
	ttl := int64(60000)
	cr, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "wait", Task: &mcp.TaskMetadata{TTL: &ttl}})
	if err != nil {
		t.Fatal(err)
	}
	task := cr.Task
	if len(task.TaskID) != 32 || task.Status != mcp.TaskWorking || task.TTL == nil || *task.TTL != ttl ||
		task.PollInterval != 20 || task.CreatedAt == "" || task.LastUpdatedAt == "" {
		t.Fatalf("created %+v", task)
	}
	if _, err := time.Parse(time.RFC3339, task.CreatedAt); err != nil {
		t.Fatal(err)
	}
	g, err := cs.GetTask(ctx, task.TaskID)
	if err != nil || g.Status != mcp.TaskWorking || g.TaskID != task.TaskID {
		t.Fatalf("get: %+v, %v", g, err)
	}
	got := make(chan *mcp.CallToolResult, 1)
	go func() {
		r, err := cs.TaskResult(ctx, task.TaskID)
		if err != nil {
			t.Error(err)
		}
		got <- r
	}()
	synctest.Wait() // every goroutine is blocked: the task waits, and so does tasks/result
	select {
	case r := <-got:
		t.Fatalf("tasks/result answered %+v before the task ended", r)
	default:
	}
	close(release)
	r := <-got
	if r == nil || len(r.Content) != 1 || r.Content[0].(*mcp.TextContent).Text != "done" {
		t.Fatalf("result %+v", r)
	}
	rel, _ := r.Meta[mcp.RelatedTaskMetaKey].(map[string]any)
	if rel["taskId"] != task.TaskID {
		t.Fatalf("result _meta %v", r.Meta)
	}
	if g, err := cs.GetTask(ctx, task.TaskID); err != nil || g.Status != mcp.TaskCompleted {
		t.Fatalf("after: %+v, %v", g, err)
	}
	// A task that has ended cannot be cancelled.
	_, err = cs.CancelTask(ctx, task.TaskID)
	wantCode(t, "cancel completed", err, codec.CodeInvalidParams)
}

func TestTaskFailures(t *testing.T) {
	srv, _ := taskServer(t, &mcp.TaskOptions{}, 0)
	cs := connect(t, srv, mcp.NewClient(nil, tasks2025))
	ctx := ctx10(t)
	cr, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "fail"})
	if err != nil {
		t.Fatal(err)
	}
	if cr.Task.TTL == nil || *cr.Task.TTL != mcp.DefaultTaskTTL.Milliseconds() {
		t.Fatalf("default ttl: %+v", cr.Task)
	}
	r, err := cs.TaskResult(ctx, cr.Task.TaskID)
	if err != nil || !r.IsError || r.Content[0].(*mcp.TextContent).Text != "it broke" {
		t.Fatalf("fail result %+v, %v", r, err)
	}
	g, _ := cs.GetTask(ctx, cr.Task.TaskID)
	if g.Status != mcp.TaskFailed || g.StatusMessage != "it broke" {
		t.Fatalf("fail task %+v", g)
	}
	cr, err = cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "protocol"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.TaskResult(ctx, cr.Task.TaskID)
	var ce *codec.Error
	if !errors.As(err, &ce) || ce.Code != -32042 || ce.Message != "custom failure" {
		t.Fatalf("protocol error result: %v", err)
	}
	// Tool-level negotiation.
	_, err = cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "plain"})
	wantCode(t, "forbidden tool as task", err, codec.CodeMethodNotFound)
	_, err = cs.CallTool(ctx, "must", nil)
	wantCode(t, "required tool without task", err, codec.CodeMethodNotFound)
	if r, err := cs.CallTool(ctx, "plain", nil); err != nil || r.Content[0].(*mcp.TextContent).Text != "plain" {
		t.Fatalf("plain call %+v, %v", r, err)
	}
	// Unknown ids.
	_, err = cs.GetTask(ctx, "nope")
	wantCode(t, "get unknown", err, codec.CodeInvalidParams)
	_, err = cs.TaskResult(ctx, "nope")
	wantCode(t, "result unknown", err, codec.CodeInvalidParams)
	_, err = cs.CancelTask(ctx, "nope")
	wantCode(t, "cancel unknown", err, codec.CodeInvalidParams)
}

// In a synctest bubble: synctest.Wait lets the cancelled tool return
// before the status is checked, without guessing how long that takes.
func TestTaskCancel(t *testing.T) {
	synctest.Test(t, testTaskCancel)
}

func testTaskCancel(t *testing.T) {
	srv, _ := taskServer(t, &mcp.TaskOptions{}, 0)
	cs := connect(t, srv, mcp.NewClient(nil, tasks2025))
	ctx := ctx10(t)
	cr, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "wait"})
	if err != nil {
		t.Fatal(err)
	}
	id := cr.Task.TaskID
	c, err := cs.CancelTask(ctx, id)
	if err != nil || c.Status != mcp.TaskCancelled || c.TaskID != id {
		t.Fatalf("cancel %+v, %v", c, err)
	}
	_, err = cs.TaskResult(ctx, id)
	wantCode(t, "result of cancelled", err, codec.CodeCancelled)
	_, err = cs.CancelTask(ctx, id)
	wantCode(t, "cancel twice", err, codec.CodeInvalidParams)
	// The tool saw its context end and returned; the task stays cancelled.
	synctest.Wait()
	if g, err := cs.GetTask(ctx, id); err != nil || g.Status != mcp.TaskCancelled {
		t.Fatalf("after cancel %+v, %v", g, err)
	}
}

func TestTaskListPages(t *testing.T) {
	srv, release := taskServer(t, &mcp.TaskOptions{MaxTasks: 5}, 2)
	close(release)
	cs := connect(t, srv, mcp.NewClient(nil, tasks2025))
	ctx := ctx10(t)
	want := map[string]bool{}
	for range 5 {
		cr, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "wait"})
		if err != nil {
			t.Fatal(err)
		}
		want[cr.Task.TaskID] = true
	}
	_, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "wait"})
	wantCode(t, "beyond MaxTasks", err, codec.CodeInvalidRequest)
	seen := map[string]bool{}
	cursor, pages := "", 0
	for {
		r, err := cs.ListTasks(ctx, &mcp.ListTasksParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(r.Tasks) > 2 {
			t.Fatalf("page of %d", len(r.Tasks))
		}
		for _, tk := range r.Tasks {
			if seen[tk.TaskID] || !want[tk.TaskID] {
				t.Fatalf("listed %s twice or unknown", tk.TaskID)
			}
			seen[tk.TaskID] = true
		}
		if cursor = r.NextCursor; cursor == "" {
			break
		}
	}
	if len(seen) != 5 || pages != 3 {
		t.Fatalf("listed %d tasks in %d pages", len(seen), pages)
	}
	_, err = cs.ListTasks(ctx, &mcp.ListTasksParams{Cursor: "not-ours"})
	wantCode(t, "bad cursor", err, codec.CodeInvalidParams)
}

func TestTaskExpiry(t *testing.T) {
	srv, _ := taskServer(t, &mcp.TaskOptions{MaxTTL: 50 * time.Millisecond}, 0)
	cs := connect(t, srv, mcp.NewClient(nil, tasks2025))
	ctx := ctx10(t)
	ttl := int64(60000) // over MaxTTL: cut to it
	cr, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "wait", Task: &mcp.TaskMetadata{TTL: &ttl}})
	if err != nil {
		t.Fatal(err)
	}
	if *cr.Task.TTL != 50 {
		t.Fatalf("ttl %d, want 50", *cr.Task.TTL)
	}
	// tasks/result waits, then finds the task gone.
	_, err = cs.TaskResult(ctx, cr.Task.TaskID)
	wantCode(t, "result of expired", err, codec.CodeInvalidParams)
	_, err = cs.GetTask(ctx, cr.Task.TaskID)
	wantCode(t, "get expired", err, codec.CodeInvalidParams)
	if r, err := cs.ListTasks(ctx, nil); err != nil || len(r.Tasks) != 0 {
		t.Fatalf("list after expiry %+v, %v", r, err)
	}
}

func TestTaskVersionGating(t *testing.T) {
	srv, release := taskServer(t, &mcp.TaskOptions{}, 0)
	close(release)
	cs := connect(t, srv, mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: mcp.Version20250618}))
	ctx := ctx10(t)
	if cs.InitializeResult().Capabilities.Tasks != nil {
		t.Fatal("tasks declared to a 2025-06-18 session")
	}
	// The task param is ignored: the call is answered as a plain one.
	r, err := cs.CallToolWith(ctx, &mcp.CallToolParams{Name: "wait", Task: &mcp.TaskMetadata{}})
	if err != nil || len(r.Content) != 1 || r.Content[0].(*mcp.TextContent).Text != "done" {
		t.Fatalf("plain answer %+v, %v", r, err)
	}
	if r, err := cs.CallTool(ctx, "must", nil); err != nil || r.Content[0].(*mcp.TextContent).Text != "must" {
		t.Fatalf("required tool on an old version %+v, %v", r, err)
	}
	_, err = cs.GetTask(ctx, "x")
	wantCode(t, "tasks/get on 2025-06-18", err, codec.CodeMethodNotFound)
	_, err = cs.ListTasks(ctx, nil)
	wantCode(t, "tasks/list on 2025-06-18", err, codec.CodeMethodNotFound)

	// A server without tasks declares none and ignores the param too.
	plain := mcp.NewServer(nil, nil)
	addEcho(plain)
	cs2 := connect(t, plain, mcp.NewClient(nil, tasks2025))
	if cs2.InitializeResult().Capabilities.Tasks != nil {
		t.Fatal("tasks declared without TaskOptions")
	}
	_, err = cs2.GetTask(ctx, "x")
	wantCode(t, "tasks/get without tasks", err, codec.CodeMethodNotFound)
}

func TestTaskStatusNotification(t *testing.T) {
	srv, release := taskServer(t, &mcp.TaskOptions{}, 0)
	cl := newClient(t, srv)
	cl.initialize(mcp.Version20251125)
	var cr mcp.CreateTaskResult
	cl.mustCall("tools/call", map[string]any{"name": "wait", "task": map[string]any{}}, &cr)
	close(release)
	n := cl.next()
	if n.method != "notifications/tasks/status" || !strings.Contains(string(n.params), `"status":"completed"`) ||
		!strings.Contains(string(n.params), cr.Task.TaskID) {
		t.Fatalf("notification %s %s", n.method, n.params)
	}
}
