package conn_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/loopback"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

// blockingRouter has "wait", a pooled handler that tells started when it
// runs and returns ctx's error once its context is done.
func blockingRouter(t *testing.T, started chan<- string) *router.Router {
	t.Helper()
	r := router.New()
	err := r.Register("wait", router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		started <- string(req.ID)
		<-ctx.Done()
		return nil, codec.NewError(codec.CodeInternalError, "cancelled: "+ctx.Err().Error())
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestConn_cancelByIDCancelsTheHandlerAndAnswersPerPolicy(t *testing.T) {
	for _, policy := range []conn.CancelPolicy{conn.CancelAnswer, conn.CancelSilent} {
		started := make(chan string, 1)
		c, p := serve(t, blockingRouter(t, started), &conn.Options{Cancel: policy})
		p.send(`{"jsonrpc":"2.0","id":"a","method":"wait"}`)
		if id := <-started; id != `"a"` {
			t.Fatalf("started %s", id)
		}
		if c.Cancel([]byte(`"b"`)) {
			t.Fatal("Cancel found a request that was never sent")
		}
		if !c.Cancel([]byte(`"a"`)) {
			t.Fatal("Cancel did not find the running request")
		}
		if policy == conn.CancelSilent {
			p.expectNothing(100 * time.Millisecond)
			continue
		}
		m := p.recvObj()
		if m["id"] != "a" || !strings.Contains(m["error"].(map[string]any)["message"].(string), "context canceled") {
			t.Fatalf("answer %v", m)
		}
	}
}

// TestConn_handlerGivingUpOnCancelIsAnsweredCancelledNotLogged: a handler
// that returns its context's error after Cancel is answered -32005, and
// nothing is logged at error level (the peer asked for it).
func TestConn_handlerGivingUpOnCancelIsAnsweredCancelledNotLogged(t *testing.T) {
	started := make(chan struct{})
	r := router.New()
	err := r.Register("wait", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	var logged strings.Builder
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(writerFunc(func(b []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logged.Write(b)
	}), &slog.HandlerOptions{Level: slog.LevelError}))
	c, p := serve(t, r, &conn.Options{Logger: log})
	p.send(`{"jsonrpc":"2.0","id":7,"method":"wait"}`)
	<-started
	c.Cancel([]byte("7"))
	if code := errCode(t, p.recvObj()); code != int(codec.CodeCancelled) {
		t.Fatalf("code %d, want %d", code, codec.CodeCancelled)
	}
	mu.Lock()
	defer mu.Unlock()
	if logged.Len() > 0 {
		t.Fatalf("logged: %s", logged.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func TestConn_canceledCallReportsItsID(t *testing.T) {
	started := make(chan string, 1)
	_, client := pair(t, blockingRouter(t, started), nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- client.Call(ctx, "wait", nil, nil) }()
	id := <-started
	cancel()
	err := <-errc
	var ce *conn.CanceledCallError
	if !errors.As(err, &ce) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Call: %v", err)
	}
	if string(ce.ID) != id {
		t.Fatalf("the error names id %s; the request went out as %s", ce.ID, id)
	}
}

// countingPool counts hand-offs.
type countingPool struct {
	n atomic.Int64
}

func (p *countingPool) Submit(t pool.Task) error {
	p.n.Add(1)
	go t.Run()
	return nil
}

// cacheHit answers every request with a stored result.
type cacheHit struct{ result []byte }

func (h cacheHit) Intercept(*router.Request) ([]byte, bool) { return h.result, true }

// cacheMiss lets every request through.
type cacheMiss struct{}

func (cacheMiss) Intercept(*router.Request) ([]byte, bool) { return nil, false }

func interceptedRouter(t *testing.T, ic router.Interceptor) *router.Router {
	t.Helper()
	r := router.New()
	err := r.Register("echo", router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
		return codec.Raw(req.Params), nil
	}), &router.MethodOptions{Intercept: ic})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestConn_interceptorAnswersWithoutAHandOff(t *testing.T) {
	var hits countingPool
	_, p := serve(t, interceptedRouter(t, cacheHit{[]byte(`{"cached":true}`)}), &conn.Options{Pool: &hits})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`,
		`[{"jsonrpc":"2.0","id":2,"method":"echo","params":[2]},{"jsonrpc":"2.0","method":"echo","params":[3]}]`)
	if m := p.recvObj(); m["id"].(float64) != 1 || m["result"].(map[string]any)["cached"] != true {
		t.Fatalf("%v", m)
	}
	arr := p.recv().([]any)
	if len(arr) != 1 || arr[0].(map[string]any)["result"].(map[string]any)["cached"] != true {
		t.Fatalf("%v", arr)
	}
	// Requests are answered from the interceptor; the notification, which
	// an interceptor never sees, went to the pool.
	if n := hits.n.Load(); n != 1 {
		t.Fatalf("%d hand-offs, want 1 (the notification)", n)
	}

	var misses countingPool
	_, p = serve(t, interceptedRouter(t, cacheMiss{}), &conn.Options{Pool: &misses})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`)
	if m := p.recvObj(); m["result"].([]any)[0].(float64) != 1 || misses.n.Load() != 1 {
		t.Fatalf("a miss must reach the handler on the pool: %v, %d hand-offs", m, misses.n.Load())
	}
}

func TestConn_refusesBatchesWhenTheSessionSaysSo(t *testing.T) {
	c, p := serve(t, testRouter(t), &conn.Options{RefuseBatches: true})
	p.send(`[{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}]`)
	if m := p.recvObj(); errCode(t, m) != -32600 || m["id"] != nil {
		t.Fatalf("%v", m)
	}
	c.SetBatches(true)
	p.send(`[{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}]`)
	if arr, ok := p.recv().([]any); !ok || len(arr) != 1 {
		t.Fatalf("%v", arr)
	}
}

// coded is a handler error carrying a JSON-RPC code of its own.
type coded struct{}

func (coded) Error() string       { return "too many widgets" }
func (coded) ErrCode() codec.Code { return codec.CodeTooManyRequests }

func TestConn_sendsErrorTextOnlyForCodedErrorsUnlessExposed(t *testing.T) {
	r := testRouter(t)
	if err := r.Register("coded", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		return nil, coded{}
	}), nil); err != nil {
		t.Fatal(err)
	}
	_, p := serve(t, r, nil)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"coded"}`)
	m := p.recvObj()
	if e := m["error"].(map[string]any); e["code"].(float64) != -32011 || e["message"] != "too many widgets" {
		t.Fatalf("%v", m)
	}
	_, p = serve(t, r, &conn.Options{ExposeErrors: true})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"fail"}`)
	if e := p.recvObj()["error"].(map[string]any); e["code"].(float64) != -32603 || e["message"] != "it failed" {
		t.Fatalf("%v", e)
	}
}

// recordingAdmission is a Limiter that records the latencies it is fed.
type recordingAdmission struct {
	*pool.Limiter
	mu        sync.Mutex
	latencies []time.Duration
}

func (a *recordingAdmission) Release(d time.Duration) {
	a.mu.Lock()
	a.latencies = append(a.latencies, d)
	a.mu.Unlock()
	a.Limiter.Release(d)
}

// It runs in a synctest bubble: the handler's 200ms pass on the bubble's
// clock, and synctest.Wait tells when the slot has been released.
func TestConn_sharedAdmissionBoundsEverySessionAndSeesLatency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		adm := &recordingAdmission{Limiter: pool.NewLimiter(1)}
		opts := &conn.Options{Admission: adm, Overload: pool.Reject}
		r, started := startedRouter(t)
		_, p1 := serve(t, r, opts)
		_, p2 := serve(t, testRouter(t), opts)
		p1.send(`{"jsonrpc":"2.0","id":1,"method":"sleep_started","params":[200]}`)
		<-started // its slot was taken before it started
		p2.send(`{"jsonrpc":"2.0","id":2,"method":"sleep","params":[1]}`)
		if m := p2.recvObj(); errCode(t, m) != -32000 {
			t.Fatalf("second session past the shared limit: %v", m)
		}
		if m := p1.recvObj(); m["result"].(float64) != 200 {
			t.Fatalf("%v", m)
		}
		synctest.Wait() // the slot is released just after the answer is sent
		adm.mu.Lock()
		defer adm.mu.Unlock()
		if l := adm.latencies; len(l) != 1 || l[0] < 200*time.Millisecond {
			t.Fatalf("latencies fed: %v", l)
		}
	})
}

func TestConn_handlerContextIsTheRequests(t *testing.T) {
	type seen struct {
		conn     *conn.Conn
		deadline bool
		afterErr chan error
	}
	got := make(chan seen, 1)
	r := router.New()
	r.Register("look", router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		_, ok := ctx.Deadline()
		s := seen{conn: conn.FromContext(ctx), deadline: ok, afterErr: make(chan error, 1)}
		go func() { <-ctx.Done(); s.afterErr <- ctx.Err() }() // kept past the handler
		got <- s
		return true, nil
	}), nil)
	c, p := serve(t, r, &conn.Options{HandlerTimeout: time.Minute})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"look"}`)
	p.recvObj()
	s := <-got
	if s.conn != c || !s.deadline {
		t.Fatalf("FromContext %p (want %p), deadline %v", s.conn, c, s.deadline)
	}
	if err := <-s.afterErr; !errors.Is(err, context.Canceled) {
		t.Fatalf("the context after the handler returned: %v", err)
	}
}

// TestConn_idleTimeoutClosesOnlyAnIdleConnection, over a pipe and over a
// socket (where the reader waits for data without a buffer: the wait ends
// as a read would).
func TestConn_idleTimeoutClosesOnlyAnIdleConnection(t *testing.T) {
	for name, serve := range map[string]func(*testing.T, *router.Router, *conn.Options) (*conn.Conn, *peer){"pipe": serve, "tcp": serveTCP} {
		t.Run(name, func(t *testing.T) {
			c, p := serve(t, testRouter(t), &conn.Options{IdleTimeout: 50 * time.Millisecond})
			p.send(`{"jsonrpc":"2.0","id":1,"method":"sleep","params":[150]}`)
			if m := p.recvObj(); m["result"].(float64) != 150 {
				t.Fatalf("a request in flight outlives the idle timeout: %v", m)
			}
			select {
			case <-c.Done():
			case <-time.After(5 * time.Second):
				t.Fatal("idle connection not closed")
			}
			if err := c.Wait(); err != nil {
				t.Fatalf("an idle close is a clean end: %v", err)
			}
		})
	}
}

// TestConn_shutdownEndsAWaitingSocketReader: Shutdown of a connection over
// a socket, idle, its reader waiting for data with no buffer, with and
// without an idle timeout.
func TestConn_shutdownEndsAWaitingSocketReader(t *testing.T) {
	for _, idle := range []time.Duration{0, time.Hour} {
		c, p := serveTCP(t, testRouter(t), &conn.Options{IdleTimeout: idle})
		p.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":["x"]}`)
		if m := p.recvObj(); fmt.Sprint(m["result"]) != "[x]" {
			t.Fatalf("idle %v: %v", idle, m)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := c.Shutdown(ctx); err != nil {
			t.Fatalf("idle %v: Shutdown: %v", idle, err)
		}
		cancel()
	}
}

func TestConn_writeTimeoutEndsAConnectionWhosePeerDoesNotRead(t *testing.T) {
	c, p := serve(t, testRouter(t), &conn.Options{WriteTimeout: 50 * time.Millisecond})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"echo_async","params":[1]}`) // nobody reads the answer
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("connection still open")
	}
	if err := c.Wait(); !errors.Is(err, context.DeadlineExceeded) && !isTimeout(err) {
		t.Fatalf("Wait: %v", err)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func TestConn_onCloseReceivesTheSessionAndMayCloseIt(t *testing.T) {
	got := make(chan *conn.Conn, 1)
	a, b := net.Pipe()
	defer b.Close()
	c := conn.New(a, &conn.Options{OnClose: func(c *conn.Conn, err error) {
		c.Close() // the session has ended: this returns at once
		got <- c
	}})
	c.Close()
	select {
	case s := <-got:
		if s != c {
			t.Fatalf("OnClose got %p, want %p", s, c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OnClose did not return: closing from it waited for itself")
	}
}

// TestConn_peerThatNeverReads: a peer pipelines 100,000 requests and reads
// nothing. The server stops reading once its output is full, so its memory
// stays bounded; Shutdown still returns by its deadline.
func TestConn_peerThatNeverReads(t *testing.T) {
	if testing.Short() {
		t.Skip("pushes ~100 MB at the server")
	}
	p0, err := pool.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p0.Close(context.Background())
	cli, srv := loopback.Pair(t) // the kernel buffers both ways, as in production
	c := conn.New(srv, &conn.Options{Router: testRouter(t), Pool: p0})
	defer c.Close()

	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"echo_async","params":["` + strings.Repeat("x", 1000) + `"]}` + "\n")
	var sent atomic.Int64
	go func() {
		for range 100_000 {
			if _, err := cli.Write(req); err != nil {
				return
			}
			sent.Add(1)
		}
	}()
	// Wait until the server has stopped reading.
	for last := int64(-1); ; {
		time.Sleep(100 * time.Millisecond)
		n := sent.Load()
		if n == last {
			break
		}
		last = n
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	grew := int64(after.HeapInuse) - int64(before.HeapInuse)
	t.Logf("the server stopped reading after %d requests; heap in use grew by %d KiB", sent.Load(), grew>>10)
	if sent.Load() >= 100_000 {
		t.Fatal("the server read every request although nothing was read from it")
	}
	if grew > 64<<20 {
		t.Fatalf("heap grew by %d MiB", grew>>20)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	c.Shutdown(ctx)
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Fatalf("Shutdown took %v with a 1s deadline", took)
	}
}

// TestConn_connectionsAreFreedAfterOneGC: buffer pools belong to the
// process, so an ended connection is garbage at the next collection.
func TestConn_connectionsAreFreedAfterOneGC(t *testing.T) {
	const n = 200
	var freed atomic.Int64
	enough := make(chan struct{}) // closed once 90% are freed
	for range n {
		cli, srv := net.Pipe()
		c := conn.New(srv, nil)
		runtime.AddCleanup(c, func(*atomic.Int64) {
			if freed.Add(1) == n*9/10 {
				close(enough)
			}
		}, &freed)
		go cli.Write([]byte("not json\n"))
		buf := make([]byte, 256)
		cli.Read(buf) // the -32700 answer
		cli.Close()
		c.Wait()
	}
	runtime.GC()
	select { // cleanups run on their own goroutine after the GC
	case <-enough:
	case <-time.After(5 * time.Second):
		t.Fatalf("%d of %d ended connections freed by one GC", freed.Load(), n)
	}
}

// fixedStream reads a fixed input and discards what is written.
type fixedStream struct{ r *strings.Reader }

func (s fixedStream) Read(p []byte) (int, error) { return s.r.Read(p) }
func (fixedStream) Write(p []byte) (int, error)  { return len(p), nil }
func (fixedStream) Close() error                 { return nil }

func TestConn_logsAStreamCutInsideAFrame(t *testing.T) {
	var logged strings.Builder
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(&lockedWriter{w: &logged, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := conn.New(fixedStream{strings.NewReader("Content-Length: 100\r\n\r\n{\"jsonrpc\"")},
		&conn.Options{Framing: codec.Header, Logger: log})
	if err := c.Wait(); err != nil {
		t.Fatalf("a cut stream is an end, not an error of the session: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logged.String(), "stream ended inside a frame") {
		t.Fatalf("nothing logged: %q", logged.String())
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestConn_servesBodiesWhileItsStreamIsRead: ServeBody from many goroutines
// at once, beside the session's own reader, through inline handlers,
// interceptors and the pool (run with -race).
func TestConn_servesBodiesWhileItsStreamIsRead(t *testing.T) {
	r := testRouter(t)
	r.Register("cached", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		return nil, errors.New("not reached")
	}), &router.MethodOptions{Intercept: cacheHit{[]byte(`"hit"`)}})
	c, p := serve(t, r, nil)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				body := `[{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]},{"jsonrpc":"2.0","id":2,"method":"cached"},{"jsonrpc":"2.0","id":3,"method":"echo_async","params":[3]}]`
				if (g+i)%2 == 0 {
					body = `{"jsonrpc":"2.0","id":1,"method":"cached"}`
				}
				var got string
				if err := c.ServeBody(context.Background(), []byte(body), func(msg []byte) { got = string(msg) }); err != nil {
					t.Error(err)
					return
				}
				if !strings.Contains(got, `"result":"hit"`) {
					t.Errorf("body answered %s", got)
					return
				}
			}
		}()
	}
	for i := range 100 {
		p.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"cached"}`)
		if m := p.recvObj(); m["result"] != "hit" {
			t.Fatalf("%v", m)
		}
	}
	wg.Wait()
}

// panickyAdmission panics in Release, after freeing the slot.
type panickyAdmission struct{ *pool.Limiter }

func (a panickyAdmission) Release(d time.Duration) {
	a.Limiter.Release(d)
	panic("admission bug")
}

// A panic in the user's Admission.Release is logged; the request is still
// answered, the connection serves on, and Close returns.
func TestConn_panickingAdmissionReleaseDoesNotHangClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log bytes.Buffer
		opts := &conn.Options{
			Admission: panickyAdmission{pool.NewLimiter(1)},
			Logger:    slog.New(slog.NewTextHandler(&log, nil)),
		}
		c, p := serve(t, testRouter(t), opts)
		for id := 1; id <= 2; id++ {
			p.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"sleep","params":[1]}`)
			if m := p.recvObj(); m["result"] == nil {
				t.Fatalf("request %d: %v", id, m)
			}
		}
		closed := make(chan struct{})
		go func() { c.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(time.Minute):
			t.Fatal("Close still waiting after a minute")
		}
		if !strings.Contains(log.String(), "Admission.Release panicked") {
			t.Errorf("log: %q", log.String())
		}
	})
}
