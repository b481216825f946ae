package conn_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/loopback"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

// ants starts its default pool's goroutines when imported: they are not ours.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m, goleak.IgnoreCurrent()) }

// peer is the raw client side of a connection under test.
type peer struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

// serve starts a server connection on one end of a net.Pipe.
func serve(t *testing.T, r *router.Router, opts *conn.Options) (*conn.Conn, *peer) {
	t.Helper()
	a, b := net.Pipe()
	return serveOn(t, a, b, r, opts)
}

// serveTCP starts a server connection on one end of a loopback TCP
// connection (a socket: its framer waits for data with no buffer).
func serveTCP(t *testing.T, r *router.Router, opts *conn.Options) (*conn.Conn, *peer) {
	t.Helper()
	b, a := loopback.Pair(t)
	return serveOn(t, a, b, r, opts)
}

// serveOn serves r on a, the peer on b.
func serveOn(t *testing.T, a, b net.Conn, r *router.Router, opts *conn.Options) (*conn.Conn, *peer) {
	t.Helper()
	o := conn.Options{}
	if opts != nil {
		o = *opts
	}
	o.Router = r
	c := conn.New(a, &o)
	t.Cleanup(func() {
		b.Close()
		c.Close()
	})
	return c, &peer{t: t, nc: b, br: bufio.NewReaderSize(b, 1<<16)}
}

func (p *peer) send(lines ...string) {
	p.t.Helper()
	go func() {
		// net.Pipe writes block until read: write from the side.
		for _, l := range lines {
			if _, err := p.nc.Write([]byte(l + "\n")); err != nil {
				return
			}
		}
	}()
}

// recv reads one response line and decodes it.
func (p *peer) recv() any {
	p.t.Helper()
	p.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := p.br.ReadBytes('\n')
	if err != nil {
		p.t.Fatalf("recv: %v (got %q)", err, line)
	}
	var v any
	if err := json.Unmarshal(line, &v); err != nil {
		p.t.Fatalf("response is not JSON: %q", line)
	}
	return v
}

// recvObj reads one response that must be a single object.
func (p *peer) recvObj() map[string]any {
	p.t.Helper()
	v := p.recv()
	m, ok := v.(map[string]any)
	if !ok {
		p.t.Fatalf("want an object, got %v", v)
	}
	return m
}

// expectNothing checks that no response arrives within d.
func (p *peer) expectNothing(d time.Duration) {
	p.t.Helper()
	p.nc.SetReadDeadline(time.Now().Add(d))
	line, err := p.br.ReadBytes('\n')
	if err == nil || len(line) > 0 {
		p.t.Fatalf("unexpected response %q", line)
	}
}

func errCode(t *testing.T, m map[string]any) int {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("want an error response, got %v", m)
	}
	return int(e["code"].(float64))
}

func testRouter(t *testing.T) *router.Router {
	t.Helper()
	r := router.New()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(r.Register("echo", router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
		return codec.Raw(req.Params), nil
	}), &router.MethodOptions{Inline: true}))
	must(r.Register("echo_async", router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
		return codec.Raw(req.Params), nil
	}), nil))
	must(r.Register("sleep", router.Func(func(ctx context.Context, p []int) (int, error) {
		select {
		case <-time.After(time.Duration(p[0]) * time.Millisecond):
			return p[0], nil
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}), nil))
	must(r.Register("panic", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		panic("boom")
	}), nil))
	must(r.Register("fail", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		return nil, errors.New("it failed")
	}), nil))
	must(r.Register("forbidden", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		return nil, codec.NewError(codec.CodeForbidden, "no").WithData(map[string]string{"permission": "admin"})
	}), nil))
	return r
}

// startedRouter is testRouter plus "sleep_started", a "sleep" that tells
// started when its handler runs: a test waits for that instead of sleeping.
func startedRouter(t *testing.T) (*router.Router, <-chan struct{}) {
	t.Helper()
	r := testRouter(t)
	started := make(chan struct{}, 1)
	sleep, _ := r.Lookup([]byte("sleep"))
	r.Register("sleep_started", router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		started <- struct{}{}
		return sleep.Handler.Handle(ctx, req)
	}), nil)
	return r, started
}

func TestConn_answersEveryPipelinedRequestExactlyOnce(t *testing.T) {
	p0, err := pool.New(&pool.Options{Workers: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer p0.Close(context.Background())
	_, p := serve(t, testRouter(t), &conn.Options{Pool: p0, MaxInFlight: 16})
	const n = 600
	lines := make([]string, n)
	for i := range lines {
		switch i % 3 {
		case 0:
			lines[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"echo","params":[%d]}`, i, i)
		case 1:
			lines[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"echo_async","params":{"n":%d}}`, i, i)
		default:
			lines[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"sleep","params":[%d]}`, i, rand.IntN(3))
		}
	}
	p.send(lines...)
	seen := make(map[int]bool)
	for range n {
		m := p.recvObj()
		id := int(m["id"].(float64))
		if seen[id] {
			t.Fatalf("id %d answered twice", id)
		}
		seen[id] = true
		if _, ok := m["result"]; !ok {
			t.Fatalf("id %d: %v", id, m)
		}
	}
	p.expectNothing(50 * time.Millisecond)
}

func TestConn_echoesIDsByteForByte(t *testing.T) {
	_, p := serve(t, testRouter(t), nil)
	for _, id := range []string{`1.50`, `12345678901234567890`, `"\u00e9"`, `null`, `-0`, `1e400`} {
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"echo","params":[]}`)
		p.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		line, err := p.br.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(line), `"id":`+id+`,`) && !strings.Contains(string(line), `"id":`+id+`}`) {
			t.Errorf("id %s not echoed verbatim: %s", id, line)
		}
	}
}

func TestConn_answersErrorsWithTheRightCodes(t *testing.T) {
	_, p := serve(t, testRouter(t), nil)
	cases := []struct {
		in   string
		code int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"nope"}`, -32601},
		{`{"jsonrpc":"2.0","id":2,"method":"panic"}`, -32603},
		{`{"jsonrpc":"2.0","id":3,"method":"fail"}`, -32603},
		{`{"jsonrpc":"2.0","id":4,"method":"forbidden"}`, -32010},
		{`{"jsonrpc":"2.0","id":5,"method":"sleep","params":["x"]}`, -32602},
		{`{"jsonrpc":"2.0","id":6,"method":"rpc.discover"}`, -32601},
		{`{"jsonrpc":"1.0","id":7,"method":"echo"}`, -32600},
		{`{"jsonrpc":"2.0","id":8,"method":"echo"`, -32700},
	}
	for _, tc := range cases {
		p.send(tc.in)
		m := p.recvObj()
		if got := errCode(t, m); got != tc.code {
			t.Errorf("%s: code %d, want %d (%v)", tc.in, got, tc.code, m)
		}
	}
	// The connection still serves after all of that.
	p.send(`{"jsonrpc":"2.0","id":9,"method":"echo","params":[9]}`)
	if m := p.recvObj(); m["id"].(float64) != 9 {
		t.Fatalf("not answered after errors: %v", m)
	}
}

func TestConn_answersFailingHandlerWithItsMessageAndData(t *testing.T) {
	_, p := serve(t, testRouter(t), nil)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"fail"}`, `{"jsonrpc":"2.0","id":2,"method":"forbidden"}`)
	got := map[float64]map[string]any{}
	for range 2 {
		m := p.recvObj()
		got[m["id"].(float64)] = m["error"].(map[string]any)
	}
	// A plain Go error's text stays on the server; a codec.Error is sent.
	if got[1]["message"] != "Internal error" || got[1]["code"].(float64) != -32603 {
		t.Errorf("message %v", got[1])
	}
	if d, _ := got[2]["data"].(map[string]any); d["permission"] != "admin" {
		t.Errorf("data %v", got[2])
	}
}

func TestConn_neverAnswersNotifications(t *testing.T) {
	_, p := serve(t, testRouter(t), nil)
	p.send(`{"jsonrpc":"2.0","method":"nope"}`, `{"jsonrpc":"2.0","method":"panic"}`,
		`{"jsonrpc":"2.0","method":"fail"}`, `{"jsonrpc":"2.0","method":"echo","params":[1]}`,
		`[{"jsonrpc":"2.0","method":"echo"},{"jsonrpc":"2.0","method":"nope"}]`)
	p.expectNothing(100 * time.Millisecond)
}

func TestConn_answersNextRequestAfterBadFrames(t *testing.T) {
	limits := &codec.Limits{MaxFrameBytes: 1024}
	_, p := serve(t, testRouter(t), &conn.Options{Limits: limits})
	big := `{"jsonrpc":"2.0","id":1,"method":"echo","params":["` + strings.Repeat("x", 4096) + `"]}`
	p.send(big, `{"jsonrpc":"2.0","id":2,"method":"echo","params":[2]}`,
		"\xff\xfe garbage", `{"jsonrpc":"2.0","id":3,"method":"echo","params":[3]}`)
	if m := p.recvObj(); errCode(t, m) != -32600 || m["id"] != nil {
		t.Fatalf("oversized frame: %v", m)
	}
	if m := p.recvObj(); m["id"].(float64) != 2 {
		t.Fatalf("after oversized: %v", m)
	}
	if m := p.recvObj(); errCode(t, m) != -32700 || m["id"] != nil {
		t.Fatalf("garbage: %v", m)
	}
	if m := p.recvObj(); m["id"].(float64) != 3 {
		t.Fatalf("after garbage: %v", m)
	}
}

func TestConn_runsBatchElementsInParallelAndAnswersInOrder(t *testing.T) {
	r := router.New()
	const n = 4
	var started sync.WaitGroup
	started.Add(n)
	var returned [n]chan struct{}
	for i := range returned {
		returned[i] = make(chan struct{})
	}
	r.Register("meet", router.Func(func(ctx context.Context, p []int) (int, error) {
		started.Done()
		started.Wait() // only returns if all n run at once
		if i := p[0]; i+1 < n {
			<-returned[i+1] // they return in reverse order
		}
		close(returned[p[0]])
		return p[0], nil
	}), nil)
	_, p := serve(t, r, nil)
	var elems []string
	for i := range n {
		elems = append(elems, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"meet","params":[%d]}`, i, i))
	}
	elems = append(elems, `{"jsonrpc":"2.0","method":"meet_note"}`, `1`)
	p.send("[" + strings.Join(elems, ",") + "]")
	arr, ok := p.recv().([]any)
	if !ok || len(arr) != n+1 {
		t.Fatalf("want an array of %d, got %v", n+1, arr)
	}
	for i := range n {
		m := arr[i].(map[string]any)
		if m["id"].(float64) != float64(i) || m["result"].(float64) != float64(i) {
			t.Fatalf("element %d out of order: %v", i, m)
		}
	}
	if errCode(t, arr[n].(map[string]any)) != -32600 {
		t.Fatalf("last: %v", arr[n])
	}
}

func TestConn_batchResponseOverLimitIsRefused(t *testing.T) {
	_, p := serve(t, testRouter(t), &conn.Options{Limits: &codec.Limits{MaxBatchResponseBytes: 100}})
	p.send(`[{"jsonrpc":"2.0","id":1,"method":"echo","params":["` + strings.Repeat("y", 200) + `"]}]`)
	if m := p.recvObj(); errCode(t, m) != -32003 {
		t.Fatalf("%v", m)
	}
}

func TestConn_rejectsWhenOverloaded(t *testing.T) {
	// The retry hint is the pool's: one hint for every refusal.
	p0, err := pool.New(&pool.Options{RetryAfter: 70 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer p0.Close(context.Background())
	_, p := serve(t, testRouter(t), &conn.Options{Pool: p0, MaxInFlight: 1, Overload: pool.Reject})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"sleep","params":[300]}`, `{"jsonrpc":"2.0","id":2,"method":"sleep","params":[1]}`)
	m := p.recvObj()
	if m["id"].(float64) != 2 || errCode(t, m) != -32000 {
		t.Fatalf("want -32000 for id 2 first, got %v", m)
	}
	data := m["error"].(map[string]any)["data"].(map[string]any)
	if data["retryAfterMs"].(float64) != 70 {
		t.Fatalf("retry hint: %v", data)
	}
	if m := p.recvObj(); m["id"].(float64) != 1 || m["result"].(float64) != 300 {
		t.Fatalf("id 1: %v", m)
	}
}

func TestConn_blocksReadingWhenFull(t *testing.T) {
	_, p := serve(t, testRouter(t), &conn.Options{MaxInFlight: 1, Overload: pool.Block})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"sleep","params":[50]}`, `{"jsonrpc":"2.0","id":2,"method":"sleep","params":[1]}`)
	// Both are served (under Reject id 2 would be refused); id 2 only once
	// id 1's handler has returned, so its answer may overtake id 1's: the
	// slot is freed before the answer is sent.
	got := map[float64]bool{}
	for range 2 {
		m := p.recvObj()
		if m["result"] == nil {
			t.Fatalf("want a result, got %v", m)
		}
		got[m["id"].(float64)] = true
	}
	if !got[1] || !got[2] {
		t.Fatalf("answered %v, want ids 1 and 2", got)
	}
}

func TestConn_answersHandlerTimeout(t *testing.T) {
	_, p := serve(t, testRouter(t), &conn.Options{HandlerTimeout: 200 * time.Millisecond})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"sleep","params":[5000]}`, `{"jsonrpc":"2.0","id":2,"method":"sleep","params":[1]}`)
	got := map[float64]map[string]any{}
	for range 2 {
		m := p.recvObj()
		got[m["id"].(float64)] = m
	}
	if errCode(t, got[1]) != -32012 {
		t.Fatalf("id 1: %v", got[1])
	}
	if r, _ := got[2]["result"].(float64); r != 1 {
		t.Fatalf("id 2 (1 ms under a 200 ms timeout): %v", got[2])
	}
	p.expectNothing(50 * time.Millisecond)
}

func TestConn_shutdownDrainsInFlightWork(t *testing.T) {
	r, started := startedRouter(t)
	c, p := serve(t, r, nil)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"sleep_started","params":[80]}`)
	<-started
	done := make(chan error, 1)
	go func() { done <- c.Shutdown(context.Background()) }()
	if m := p.recvObj(); m["result"].(float64) != 80 {
		t.Fatalf("%v", m)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := p.br.ReadByte(); err == nil {
		t.Fatal("stream still open after Shutdown")
	}
}

func TestConn_shutdownPastDeadlineAnswersRunningRequests(t *testing.T) {
	r, started := startedRouter(t)
	c, p := serve(t, r, nil)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"sleep_started","params":[10000]}`)
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Shutdown(ctx) }()
	// Abandoned while running: -32004, not the -32000 of a refusal (a
	// retry may not be safe).
	m := p.recvObj()
	if m["id"].(float64) != 1 || errCode(t, m) != -32004 {
		t.Fatalf("%v", m)
	}
	if err := <-done; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v", err)
	}
}

func TestConn_drainsAndClosesWhenPeerEndsStream(t *testing.T) {
	r, started := startedRouter(t)
	c, p := serve(t, r, nil)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"sleep_started","params":[30]}`)
	<-started
	// A pipe cannot half-close; closing the server's read side is what EOF
	// would do: check the response still arrives through Done.
	if m := p.recvObj(); m["result"].(float64) != 30 {
		t.Fatalf("%v", m)
	}
	p.nc.Close()
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("connection did not end after the peer closed")
	}
}

// pair connects two conns over a pipe, each serving its own router.
func pair(t *testing.T, ra, rb *router.Router) (*conn.Conn, *conn.Conn) {
	t.Helper()
	a, b := net.Pipe()
	ca := conn.New(a, &conn.Options{Router: ra})
	cb := conn.New(b, &conn.Options{Router: rb})
	t.Cleanup(func() {
		ca.Close()
		cb.Close()
	})
	return ca, cb
}

func TestConn_callsBothWays(t *testing.T) {
	server := router.New()
	server.Register("ask_back", router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		var name string
		if err := conn.FromContext(ctx).Call(ctx, "whoami", []int{}, &name); err != nil {
			return nil, err
		}
		return "hello " + name, nil
	}), nil)
	client := router.New()
	var notes atomic.Int32
	client.Register("whoami", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		return "client", nil
	}), nil)
	client.Register("note", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		notes.Add(1)
		return nil, nil
	}), &router.MethodOptions{Inline: true})
	cc, sc := pair(t, client, server)

	ctx := context.Background()
	var got string
	if err := cc.Call(ctx, "ask_back", nil, &got); err != nil || got != "hello client" {
		t.Fatalf("got %q, %v", got, err)
	}
	err := cc.Call(ctx, "missing", map[string]int{"a": 1}, nil)
	if !errors.Is(err, codec.ErrMethodNotFound) {
		t.Fatalf("want method not found, got %v", err)
	}
	if err := cc.Call(ctx, "ask_back", 5, nil); !errors.Is(err, conn.ErrBadParams) {
		t.Fatalf("scalar params: %v", err)
	}
	for range 3 {
		if err := sc.Notify(ctx, "note", nil); err != nil {
			t.Fatal(err)
		}
	}
	// Calls answered in order on one connection: a call after the
	// notifications sees them served.
	if err := sc.Call(ctx, "whoami", nil, &got); err != nil {
		t.Fatal(err)
	}
	if n := notes.Load(); n != 3 {
		t.Fatalf("notifications served: %d", n)
	}
}

func TestConn_manyConcurrentCallsGetTheirOwnResults(t *testing.T) {
	cc, _ := pair(t, nil, testRouter(t))
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				want := strconv.Itoa(g*1000 + i)
				var got []string
				if err := cc.Call(context.Background(), "echo_async", []string{want}, &got); err != nil || len(got) != 1 || got[0] != want {
					errs <- fmt.Errorf("want %s, got %v %v", want, got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestConn_pendingCallsFailWhenConnectionEnds(t *testing.T) {
	silent := router.New()
	hung := make(chan struct{}, 1)
	silent.Register("hang", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
		hung <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}), nil)
	cc, sc := pair(t, nil, silent)
	errc := make(chan error, 1)
	go func() { errc <- cc.Call(context.Background(), "hang", nil, nil) }()
	<-hung
	sc.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, conn.ErrClosed) {
			t.Fatalf("want ErrClosed, got %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("pending call not failed")
	}
	if err := cc.Call(context.Background(), "hang", nil, nil); !errors.Is(err, conn.ErrClosed) {
		t.Fatalf("call after end: %v", err)
	}
}

func TestConn_callHonoursContext(t *testing.T) {
	cc, _ := pair(t, nil, testRouter(t))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	err := cc.Call(ctx, "sleep", []int{2000}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want deadline, got %v", err)
	}
	// The late response is dropped and the connection goes on.
	var got []int
	if err := cc.Call(context.Background(), "echo", []int{7}, &got); err != nil || got[0] != 7 {
		t.Fatalf("%v %v", got, err)
	}
}

func TestConn_headerFraming(t *testing.T) {
	a, b := net.Pipe()
	sc := conn.New(a, &conn.Options{Router: testRouter(t), Framing: codec.Header})
	cc := conn.New(b, &conn.Options{Framing: codec.Header})
	defer sc.Close()
	defer cc.Close()
	var got map[string]int
	if err := cc.Call(context.Background(), "echo_async", map[string]int{"x": 1}, &got); err != nil || got["x"] != 1 {
		t.Fatalf("%v %v", got, err)
	}
}

// Found by FuzzConn: a batch whose pooled notification never counted as
// done was never answered.
func TestConn_answersBatchWithPooledNotification(t *testing.T) {
	_, p := serve(t, testRouter(t), nil)
	p.send(`[{"jsonrpc":"2.0","method":"echo_async"},{}]`)
	arr, ok := p.recv().([]any)
	if !ok || len(arr) != 1 || errCode(t, arr[0].(map[string]any)) != -32600 {
		t.Fatalf("got %v", arr)
	}
}

func TestConn_answersOverloadedWhenANonBlockingPoolIsFull(t *testing.T) {
	p0, err := pool.New(&pool.Options{Workers: 1, Queue: 1, Overload: pool.Reject, RetryAfter: 25 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer p0.Close(context.Background())
	_, p := serve(t, testRouter(t), &conn.Options{Pool: p0})
	// One worker and a queue of one: of three slow requests sent at once,
	// at most two are accepted, and the refusals come first. (Led by the
	// reader, the first would not take the worker.)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"sleep","params":[100]}`,
		`{"jsonrpc":"2.0","id":2,"method":"sleep","params":[100]}`,
		`{"jsonrpc":"2.0","id":3,"method":"sleep","params":[100]}`)
	var refused, results int
	for i := range 3 {
		m := p.recvObj()
		switch {
		case m["result"] != nil:
			results++
		case errCode(t, m) == -32000 && i == refused:
			refused++
		default:
			t.Fatalf("response %d: %v", i, m)
		}
	}
	if refused == 0 || results == 0 {
		t.Fatalf("%d refused, %d results; want both", refused, results)
	}
}

func TestConn_carriesLargeMessagesInBothFramings(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	for _, f := range []codec.Framing{codec.Newline, codec.Header} {
		for _, method := range []string{"echo", "echo_async"} {
			t.Run(f.String()+"/"+method, func(t *testing.T) {
				a, b := net.Pipe()
				sc := conn.New(a, &conn.Options{Router: testRouter(t), Framing: f})
				cc := conn.New(b, &conn.Options{Framing: f})
				defer sc.Close()
				defer cc.Close()
				var wg sync.WaitGroup
				for i := range 4 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						var got []string
						want := big[i:]
						if err := cc.Call(context.Background(), method, []string{want}, &got); err != nil || len(got) != 1 || got[0] != want {
							t.Errorf("call %d: %d bytes back, %v", i, len(got), err)
						}
					}()
				}
				wg.Wait()
			})
		}
	}
}

// Found by FuzzConn: the copy of a batch's frame was recycled when its first
// pooled element finished before the reader had dispatched a later one.
func TestConn_keepsBatchFrameUntilEveryElementIsDispatched(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := testRouter(t)
		r.Register("slow_inline", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
			synctest.Wait() // the pooled element before finishes meanwhile
			return "slow", nil
		}), &router.MethodOptions{Inline: true})
		_, p := serve(t, r, nil)
		p.send(`[{"jsonrpc":"2.0","id":1,"method":"echo_async","params":["a"]},` +
			`{"jsonrpc":"2.0","id":2,"method":"slow_inline"},` +
			`{"jsonrpc":"2.0","id":3,"method":"echo_async","params":["c"]}]`)
		arr, ok := p.recv().([]any)
		if !ok || len(arr) != 3 {
			t.Fatalf("got %v", arr)
		}
		want := []any{[]any{"a"}, "slow", []any{"c"}}
		for i, el := range arr {
			if got := el.(map[string]any)["result"]; fmt.Sprint(got) != fmt.Sprint(want[i]) {
				t.Errorf("element %d: %v, want %v", i, got, want[i])
			}
		}
	})
}

func TestConn_namesTheUnknownMethodInErrorData(t *testing.T) {
	_, p := serve(t, testRouter(t), nil)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"t\u006fols/list"}`)
	m := p.recvObj()
	data, _ := m["error"].(map[string]any)["data"].(map[string]any)
	if errCode(t, m) != -32601 || data["method"] != "tools/list" {
		t.Fatalf("%v", m)
	}
}

// A request's slot is free before its answer is sent: a peer that sends
// its next request as soon as it reads an answer is never refused for the
// one it has just been answered.
func TestConn_slotIsFreeBeforeTheAnswerIsSent(t *testing.T) {
	p0, err := pool.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p0.Close(context.Background())
	_, p := serve(t, testRouter(t), &conn.Options{Pool: p0, MaxInFlight: 1, Overload: pool.Reject})
	for i := range 200 {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"echo_async","params":{"n":%d}}`, i, i))
		if m := p.recvObj(); m["error"] != nil {
			t.Fatalf("request %d of a sequential peer refused: %v", i, m)
		}
	}
}

// Inline elements of a batch are encoded one after another into the
// batch's own buffer; a panicking one must leave the others intact and in
// request order, between pooled elements that finish later.
func TestConn_inlineBatchElementsKeepTheirOwnResponses(t *testing.T) {
	r := router.New()
	r.Register("twice", router.Func(func(_ context.Context, p []int) (int, error) {
		return 2 * p[0], nil
	}), &router.MethodOptions{Inline: true})
	r.Register("boom", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		panic("boom")
	}), &router.MethodOptions{Inline: true})
	r.Register("pooled", router.Func(func(_ context.Context, p []int) (int, error) {
		return p[0], nil
	}), nil)
	_, p := serve(t, r, nil)
	p.send(`[{"jsonrpc":"2.0","id":1,"method":"twice","params":[1]},` +
		`{"jsonrpc":"2.0","id":2,"method":"pooled","params":[20]},` +
		`{"jsonrpc":"2.0","id":3,"method":"boom"},` +
		`{"jsonrpc":"2.0","id":4,"method":"twice","params":[4]}]`)
	arr, ok := p.recv().([]any)
	if !ok || len(arr) != 4 {
		t.Fatalf("want an array of 4, got %v", arr)
	}
	for i, want := range []float64{2, 20, 0, 8} {
		m := arr[i].(map[string]any)
		if m["id"].(float64) != float64(i+1) {
			t.Fatalf("element %d out of order: %v", i, m)
		}
		if i == 2 {
			if errCode(t, m) != -32603 {
				t.Fatalf("panicking element: %v", m)
			}
			continue
		}
		if m["result"].(float64) != want {
			t.Fatalf("element %d: %v", i, m)
		}
	}
}

// A connection that never listed a pooled request (its in-flight shards
// are made by the first) times out a notification's handler, and shuts
// down past its deadline, like any other.
func TestConn_nothingListedShutsDownAndTimesOut(t *testing.T) {
	r := router.New()
	running, release := make(chan struct{}), make(chan struct{})
	if err := r.Register("block", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		close(running)
		<-release // past Shutdown's deadline
		return "done", nil
	}), &router.MethodOptions{Inline: true}); err != nil {
		t.Fatal(err)
	}
	ran := make(chan struct{})
	if err := r.Register("note", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
		<-ctx.Done() // HandlerTimeout
		close(ran)
		return nil, nil
	}), nil); err != nil {
		t.Fatal(err)
	}
	c, p := serve(t, r, &conn.Options{HandlerTimeout: 10 * time.Millisecond})
	p.send(`{"jsonrpc":"2.0","method":"note"}`)
	<-ran
	p.send(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
	<-running
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := c.Shutdown(ctx)
	close(release)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v", err)
	}
}
