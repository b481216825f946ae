package redisstore_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/internal/redistest"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/redisstore"
)

// Two instances of one server, each an mcp.Server behind a Streamable
// HTTP handler with a Store of its own on one redis-server, share their
// tasks: what one starts, the other reads, awaits and cancels.

// taskInstance is one instance: its store, its Redis client's command
// count, and its tool "hold", which runs until its context ends
// (telling started and cancelled) or release is closed.
type taskInstance struct {
	st        *redisstore.Store
	rdb       *redis.Client
	srv       *mcp.Server
	h         *streamable.Handler
	url       string
	commands  *atomic.Int64
	started   chan string // the task's id, as the tool starts
	cancelled chan string // the task's id, as its context ends
}

// taskInstances starts two instances on srv sharing a session store (for
// 2025-11-25's sessions), with task options o (the Store set).
func taskInstances(t *testing.T, srv *redistest.Server, o mcp.TaskOptions, release chan struct{}) [2]*taskInstance {
	t.Helper()
	sessions := streamable.NewMemorySessionStore()
	var is [2]*taskInstance
	for i, name := range []string{"one", "two"} {
		rdb, err := redisstore.Dial(srv.URL())
		if err != nil {
			t.Fatal(err)
		}
		n := new(atomic.Int64)
		rdb.AddHook(commandCounter{n})
		st := redisstore.New(rdb, &redisstore.Options{Instance: name})
		in := &taskInstance{st: st, rdb: rdb, commands: n, started: make(chan string, 8), cancelled: make(chan string, 8)}
		o.Store = st.TaskStore()
		s := mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "1"}, &mcp.ServerOptions{Tasks: &o})
		err = s.AddTool(&mcp.Tool{Name: "hold", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
			func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				id := mcp.TaskIDFromContext(ctx)
				in.started <- id
				select {
				case <-ctx.Done():
					in.cancelled <- id
					return nil, ctx.Err()
				case <-release:
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released"}}}, nil
				}
			})
		if err != nil {
			t.Fatal(err)
		}
		h := streamable.NewHandler(s, &streamable.Options{SessionStore: sessions})
		hs := httptest.NewServer(h)
		in.srv, in.h, in.url = s, h, hs.URL
		t.Cleanup(func() {
			hs.Close()
			h.Close()
			st.Close()
			rdb.Close()
		})
		is[i] = in
	}
	return is
}

// signalsAlone are task options under which only a signal reaches
// another instance within a test's bounds: the running instance reads
// its task's record every 5 minutes (five poll intervals), and a waiting
// tasks/result every minute.
var signalsAlone = mcp.TaskOptions{PollInterval: time.Minute, Lease: time.Hour}

// commandCounter is a go-redis hook counting the commands sent, but
// those that set a new connection up, and a pipeline as one.
type commandCounter struct{ n *atomic.Int64 }

func (commandCounter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c commandCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if name := cmd.Name(); name != "hello" && name != "client" { // a new connection's set-up
			c.n.Add(1)
		}
		return next(ctx, cmd)
	}
}
func (c commandCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, cmd := range cmds {
			if name := cmd.Name(); name != "hello" && name != "client" {
				c.n.Add(1)
				break
			}
		}
		return next(ctx, cmds)
	}
}

// taskAnswer is a JSON-RPC response.
type taskAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// postMessage sends one request to url (a session's when session is set) and
// returns its answer, from a JSON body or an event stream (nil, the test
// failed, when there is none: it may run on any goroutine), and the
// Mcp-Session-Id the response carries.
func postMessage(t *testing.T, url, session, version, method, params string, hdr ...string) (*taskAnswer, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":` + params + `}`
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return nil, ""
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", version)
	req.Header.Set("Mcp-Method", method)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("%s: %v", method, err)
		return nil, ""
	}
	defer resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode == http.StatusAccepted {
		return nil, sid
	}
	var data []string
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data:"); ok && strings.Contains(d, `"id":7`) {
				data = append(data, d)
			}
		}
	} else {
		b, _ := io.ReadAll(resp.Body)
		data = append(data, string(b))
	}
	if len(data) != 1 {
		t.Errorf("%s: status %d, answers %q", method, resp.StatusCode, data)
		return nil, sid
	}
	var a taskAnswer
	if err := json.Unmarshal([]byte(data[0]), &a); err != nil {
		t.Errorf("%s: %v in %s", method, err, data[0])
		return nil, sid
	}
	return &a, sid
}

// extMeta declares the tasks extension in a 2026-07-28 request's _meta.
const extMeta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},` +
	`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// ext sends a request of the tasks extension to in and returns its
// answer; name is the Mcp-Name header (the tool, or the task id).
func ext(t *testing.T, in *taskInstance, method, name, params string) *taskAnswer {
	t.Helper()
	a, _ := postMessage(t, in.url, "", mcp.Version20260728, method, `{"_meta":`+extMeta+`,`+params+`}`, "Mcp-Name", name)
	return a
}

// resultObject decodes an answer's result, failing on an error.
func resultObject(t *testing.T, what string, a *taskAnswer) map[string]any {
	t.Helper()
	if a == nil || a.Error != nil {
		t.Fatalf("%s: %+v", what, a)
	}
	var m map[string]any
	if err := json.Unmarshal(a.Result, &m); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return m
}

// recvWithin waits up to d for a value of ch.
func recvWithin[T any](t *testing.T, what string, ch <-chan T, d time.Duration) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("%s: nothing after %v", what, d)
	}
	panic("unreachable")
}

// A task of the tasks extension started on one instance is read and
// cancelled through the other: the tool's context on the first ends at
// once, by the signal (the poll interval is a minute, so polling cannot
// be what ends it), and both instances say cancelled.
func TestTasks_extCancelledThroughAnotherInstance(t *testing.T) {
	srv := redistest.Start(t)
	in := taskInstances(t, srv, signalsAlone, make(chan struct{}))
	created := resultObject(t, "tools/call", ext(t, in[0], "tools/call", "hold", `"name":"hold","arguments":{}`))
	id, _ := created["taskId"].(string)
	if created["resultType"] != "task" || id == "" {
		t.Fatalf("tools/call: %v", created)
	}
	if got := recvWithin(t, "the tool's start", in[0].started, 10*time.Second); got != id {
		t.Fatalf("the tool runs task %q, want %q", got, id)
	}
	if got := resultObject(t, "tasks/get", ext(t, in[1], "tasks/get", id, `"taskId":"`+id+`"`)); got["status"] != "working" {
		t.Fatalf("tasks/get through the other instance: %v", got)
	}
	resultObject(t, "tasks/cancel", ext(t, in[1], "tasks/cancel", id, `"taskId":"`+id+`"`))
	if got := recvWithin(t, "the tool's cancellation", in[0].cancelled, 10*time.Second); got != id {
		t.Fatalf("cancelled %q, want %q", got, id)
	}
	for i, inst := range in {
		// The first instance's run has ended: the record stays cancelled.
		if got := resultObject(t, "tasks/get", ext(t, inst, "tasks/get", id, `"taskId":"`+id+`"`)); got["status"] != "cancelled" {
			t.Errorf("tasks/get through instance %d: %v", i, got)
		}
	}
}

// session2025 opens a 2025-11-25 session through in and returns its id.
func session2025(t *testing.T, in *taskInstance) string {
	t.Helper()
	a, sid := postMessage(t, in.url, "", mcp.Version20251125, "initialize",
		`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)
	resultObject(t, "initialize", a)
	if sid == "" {
		t.Fatal("initialize: no Mcp-Session-Id")
	}
	postMessage(t, in.url, sid, mcp.Version20251125, "notifications/initialized", `{}`)
	return sid
}

// task2025 starts two instances (signalsAlone), opens a 2025-11-25
// session through the first and starts a task of "hold" there; it
// returns the instances, the session's id, a func sending a request of
// the session to instance i, and the task's id once its tool runs.
func task2025(t *testing.T, release chan struct{}) (in [2]*taskInstance, sid string, call func(i int, method, params string) *taskAnswer, id string) {
	t.Helper()
	in = taskInstances(t, redistest.Start(t), signalsAlone, release)
	sid = session2025(t, in[0])
	call = func(i int, method, params string) *taskAnswer {
		a, _ := postMessage(t, in[i].url, sid, mcp.Version20251125, method, params)
		return a
	}
	created := resultObject(t, "tools/call", call(0, "tools/call", `{"name":"hold","arguments":{},"task":{}}`))
	id, _ = created["task"].(map[string]any)["taskId"].(string)
	recvWithin(t, "the tool's start", in[0].started, 10*time.Second)
	return in, sid, call, id
}

// A 2025-11-25 task started on one instance's copy of a session is seen
// by the copy of another (re-created from the shared session store),
// and its tasks/result there returns as the task ends on the first —
// woken by the signal, the poll interval being a minute.
func TestTasks_2025ResultThroughAnotherCopyOfTheSession(t *testing.T) {
	release := make(chan struct{})
	in, _, call, id := task2025(t, release)
	if got := resultObject(t, "tasks/get", call(1, "tasks/get", `{"taskId":"`+id+`"}`)); got["status"] != "working" {
		t.Fatalf("tasks/get through the other copy: %v", got)
	}
	list := resultObject(t, "tasks/list", call(1, "tasks/list", `{}`))
	if ts, _ := list["tasks"].([]any); len(ts) != 1 || ts[0].(map[string]any)["taskId"] != id {
		t.Fatalf("tasks/list through the other copy: %v", list)
	}
	n0 := in[1].commands.Load()
	got := make(chan *taskAnswer, 1)
	go func() { got <- call(1, "tasks/result", `{"taskId":"`+id+`"}`) }()
	// tasks/result on the second instance reads the task (working),
	// watches it, reads it again, and waits: only then is it released.
	untilTrue(t, "tasks/result's two reads", func() bool { return in[1].commands.Load() >= n0+2 })
	close(release)
	a := recvWithin(t, "tasks/result", got, 10*time.Second)
	if r := resultObject(t, "tasks/result", a); !strings.Contains(string(a.Result), "released") {
		t.Fatalf("tasks/result: %v", r)
	}
}

// A 2025-11-25 task cancelled through another copy of its session: the
// tool's context on the first instance ends, and tasks/result waiting
// on the second answers the cancellation.
func TestTasks_2025CancelledThroughAnotherCopyOfTheSession(t *testing.T) {
	in, _, call, id := task2025(t, make(chan struct{}))
	waiting := make(chan *taskAnswer, 1)
	go func() { waiting <- call(1, "tasks/result", `{"taskId":"`+id+`"}`) }()
	if got := resultObject(t, "tasks/cancel", call(1, "tasks/cancel", `{"taskId":"`+id+`"}`)); got["status"] != "cancelled" {
		t.Fatalf("tasks/cancel: %v", got)
	}
	if got := recvWithin(t, "the tool's cancellation", in[0].cancelled, 10*time.Second); got != id {
		t.Fatalf("cancelled %q, want %q", got, id)
	}
	if a := recvWithin(t, "tasks/result", waiting, 10*time.Second); a.Error == nil || a.Error.Code != -32005 {
		t.Fatalf("tasks/result of a cancelled task: %+v", a)
	}
	for i := range in {
		if got := resultObject(t, "tasks/get", call(i, "tasks/get", `{"taskId":"`+id+`"}`)); got["status"] != "cancelled" {
			t.Errorf("tasks/get through instance %d: %v", i, got)
		}
	}
}

// untilTrue waits up to 10 s for cond.
func untilTrue(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 10s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The Redis commands (each one round trip) of the extension's task
// requests, once the scripts are loaded: tools/call making a task 1 (the
// Create script), tasks/get 1 (GET), tasks/cancel through another
// instance 3 (GET, the compare-and-set script, PUBLISH); the running
// instance then reads the record twice: as the signal comes, and as the
// run ends (finding it cancelled, it writes nothing).
func TestTasks_roundTrips(t *testing.T) {
	srv := redistest.Start(t)
	in := taskInstances(t, srv, signalsAlone, make(chan struct{}))
	var last [2]int64
	spent := func() (n [2]int64) {
		for i := range in {
			c := in[i].commands.Load()
			n[i], last[i] = c-last[i], c
		}
		return n
	}
	for round := range 2 { // the first loads the scripts
		spent()
		id, _ := resultObject(t, "tools/call", ext(t, in[0], "tools/call", "hold", `"name":"hold","arguments":{}`))["taskId"].(string)
		recvWithin(t, "the tool's start", in[0].started, 10*time.Second)
		create := spent()
		resultObject(t, "tasks/get", ext(t, in[1], "tasks/get", id, `"taskId":"`+id+`"`))
		get := spent()
		resultObject(t, "tasks/cancel", ext(t, in[1], "tasks/cancel", id, `"taskId":"`+id+`"`))
		recvWithin(t, "the tool's cancellation", in[0].cancelled, 10*time.Second)
		untilTrue(t, "the run's end", func() bool { return in[0].commands.Load()-last[0] >= 2 })
		cancel := spent()
		t.Logf("round %d: commands of (instance one, two): tools/call %v, tasks/get %v, tasks/cancel and the run's end %v", round, create, get, cancel)
		if round == 0 {
			continue
		}
		for _, c := range []struct {
			what      string
			got, want [2]int64
		}{{"tools/call", create, [2]int64{1, 0}}, {"tasks/get", get, [2]int64{0, 1}}, {"tasks/cancel", cancel, [2]int64{2, 3}}} {
			if c.got != c.want {
				t.Errorf("%s: %v commands, want %v", c.what, c.got, c.want)
			}
		}
	}
}

// With Redis down, task requests are answered -32603 "the task store is
// unavailable" within a bound; once it is back, the same stores serve
// tasks again, across instances.
func TestTasks_redisDownAndBack(t *testing.T) {
	srv := redistest.Start(t)
	in := taskInstances(t, srv, mcp.TaskOptions{PollInterval: 50 * time.Millisecond}, make(chan struct{}))
	srv.Kill()
	for _, c := range []struct {
		inst                 *taskInstance
		method, name, params string
	}{
		{in[0], "tools/call", "hold", `"name":"hold","arguments":{}`},
		{in[1], "tasks/get", "t1", `"taskId":"t1"`},
		{in[1], "tasks/cancel", "t1", `"taskId":"t1"`},
	} {
		start := time.Now()
		a := ext(t, c.inst, c.method, c.name, c.params)
		if d := time.Since(start); d > 2*time.Second { // the store's timeout is 1s
			t.Errorf("%s with Redis down took %v", c.method, d)
		}
		if a == nil || a.Error == nil || a.Error.Code != -32603 || a.Error.Message != "Internal error: the task store is unavailable" {
			t.Errorf("%s with Redis down: %+v", c.method, a)
		}
	}
	srv.Restart()
	id, _ := resultObject(t, "tools/call", ext(t, in[0], "tools/call", "hold", `"name":"hold","arguments":{}`))["taskId"].(string)
	recvWithin(t, "the tool's start", in[0].started, 10*time.Second)
	resultObject(t, "tasks/cancel", ext(t, in[1], "tasks/cancel", id, `"taskId":"`+id+`"`))
	recvWithin(t, "the tool's cancellation", in[0].cancelled, 10*time.Second)
}

// A task whose instance stops (here: loses Redis) while it runs is
// failed by the next tasks/get on another instance once its lease has
// ended; while the instance renews it, the lease holds past its length.
func TestTasks_leaseOfAStoppedInstanceEnds(t *testing.T) {
	srv := redistest.Start(t)
	release := make(chan struct{})
	const lease = 1500 * time.Millisecond
	// The lease is renewed every 250ms: five poll intervals.
	in := taskInstances(t, srv, mcp.TaskOptions{PollInterval: 50 * time.Millisecond, Lease: lease}, release)
	t.Cleanup(func() { close(release) })
	id, _ := resultObject(t, "tools/call", ext(t, in[0], "tools/call", "hold", `"name":"hold","arguments":{}`))["taskId"].(string)
	recvWithin(t, "the tool's start", in[0].started, 10*time.Second)
	start, n0 := time.Now(), in[0].commands.Load()
	// Seven renewals (a read and a write each) take longer than the lease.
	untilTrue(t, "seven renewals", func() bool { return in[0].commands.Load()-n0 >= 14 && time.Since(start) > lease })
	if got := resultObject(t, "tasks/get", ext(t, in[1], "tasks/get", id, `"taskId":"`+id+`"`)); got["status"] != "working" {
		t.Fatalf("tasks/get of a task whose lease is renewed: %v", got)
	}
	in[0].rdb.Close() // the first instance stops renewing it
	var got map[string]any
	untilTrue(t, "the task failed", func() bool {
		got = resultObject(t, "tasks/get", ext(t, in[1], "tasks/get", id, `"taskId":"`+id+`"`))
		return got["status"] != "working"
	})
	e, _ := got["error"].(map[string]any)
	if got["status"] != "failed" || e["code"] != float64(-32603) ||
		e["message"] != "Internal error: the instance running the task stopped before it ended" {
		t.Fatalf("tasks/get of a task whose instance stopped: %v", got)
	}
}

// A copy of a 2025-11-25 session that ends on one instance (its handler
// closing) leaves the session's tasks to the copies elsewhere; the
// client's DELETE, wherever it goes, deletes them from Redis.
func TestTasks_2025KeptUntilTheSessionIsDeleted(t *testing.T) {
	in, sid, call, id := task2025(t, make(chan struct{}))
	resultObject(t, "tasks/get", call(1, "tasks/get", `{"taskId":"`+id+`"}`))
	copies := in[0].srv.Sessions()
	if len(copies) != 1 {
		t.Fatalf("instance one has %d sessions", len(copies))
	}
	in[0].h.Close() // its run there ends with it
	recvWithin(t, "the tool's cancellation", in[0].cancelled, 10*time.Second)
	recvWithin(t, "the end of the copy", copies[0].Done(), 10*time.Second)
	if got := resultObject(t, "tasks/get", call(1, "tasks/get", `{"taskId":"`+id+`"}`)); got["taskId"] != id {
		t.Fatalf("tasks/get through the other copy: %v", got)
	}
	ctx := context.Background()
	taskKeys := func() []string {
		keys, err := in[1].rdb.Keys(ctx, "mcpwire:task*").Result()
		if err != nil {
			t.Fatal(err)
		}
		return keys
	}
	if keys := taskKeys(); len(keys) != 2 {
		t.Fatalf("before DELETE: keys %v, want the task's and its index", keys)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, in[1].url, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("MCP-Protocol-Version", mcp.Version20251125)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %s", resp.Status)
	}
	untilTrue(t, "the tasks' deletion", func() bool { return len(taskKeys()) == 0 })
}

// A Redis that accepts connections and never answers (a network that
// drops packets): concurrent task creations each fail within the
// store's timeout, none queued behind another's.
func TestTasks_silentRedisFailsEachCreationInTime(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns sync.WaitGroup
	t.Cleanup(func() { l.Close(); conns.Wait() })
	conns.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns.Go(func() { io.Copy(io.Discard, c); c.Close() }) // ends as the client closes
		}
	})
	rdb, err := redisstore.Dial("redis://" + l.Addr().String() + "/0")
	if err != nil {
		t.Fatal(err)
	}
	st := redisstore.New(rdb, &redisstore.Options{Instance: "silent"})
	t.Cleanup(func() { st.Close(); rdb.Close() })
	s := mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "1"}, &mcp.ServerOptions{
		Tasks: &mcp.TaskOptions{Store: st.TaskStore()}})
	err = s.AddTool(&mcp.Tool{Name: "hold", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	h := streamable.NewHandler(s, nil)
	hs := httptest.NewServer(h)
	t.Cleanup(func() { hs.Close(); h.Close() })
	in := &taskInstance{url: hs.URL}
	const calls = 4
	answers := make(chan *taskAnswer, calls)
	start := time.Now()
	for range calls {
		go func() { answers <- ext(t, in, "tools/call", "hold", `"name":"hold","arguments":{}`) }()
	}
	for range calls {
		a := recvWithin(t, "a creation's answer", answers, 10*time.Second)
		if a == nil || a.Error == nil || a.Error.Message != "Internal error: the task store is unavailable" {
			t.Errorf("tools/call with a silent Redis: %+v", a)
		}
	}
	// Each call gives up after the store's timeout (1s); in turn, they
	// would take four.
	if d := time.Since(start); d > 2500*time.Millisecond {
		t.Errorf("%d concurrent creations took %v", calls, d)
	}
}
