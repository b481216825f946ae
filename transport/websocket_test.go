package transport_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// dialWS opens a client session on the server's /ws.
func dialWS(t *testing.T, s *rpcServer, opts *transport.WebSocketOptions) *conn.Conn {
	t.Helper()
	st, err := transport.DialWebSocket(context.Background(), s.wsURL(), opts)
	if err != nil {
		t.Fatal(err)
	}
	c := conn.NewStream(st, nil)
	t.Cleanup(func() { c.Close() })
	return c
}

// rawWS opens a plain coder/websocket connection on the server's /ws.
func rawWS(t *testing.T, s *rpcServer, opts *websocket.DialOptions) *websocket.Conn {
	t.Helper()
	ws, _, err := websocket.Dial(context.Background(), s.wsURL(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	return ws
}

// exchange writes msg and reads one message, within a second.
func exchange(t *testing.T, ws *websocket.Conn, msg string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := ws.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	_, b, err := ws.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWebSocket_clientStreamRoundTrip(t *testing.T) {
	notes := make(chan string, 1)
	ended := make(chan struct{})
	p := &peers{opts: &conn.Options{Router: rpcRouter(notes), OnClose: func(*conn.Conn, error) { close(ended) }}}
	s := startRPC(t, p, nil, nil)
	c := dialWS(t, s, &transport.WebSocketOptions{Header: http.Header{"Authorization": {"Bearer ws"}}})
	ctx := context.Background()

	var got []int
	if err := c.Call(ctx, "echo", []int{1, 2}, &got); err != nil || len(got) != 2 || got[1] != 2 {
		t.Fatalf("echo: %v %v", got, err)
	}
	var auth string
	if err := c.Call(ctx, "header", []string{"Authorization"}, &auth); err != nil || auth != "Bearer ws" {
		t.Fatalf("header: %q %v", auth, err)
	}
	err := c.Call(ctx, "fail", map[string]int{"code": -32010}, nil)
	if !errors.Is(err, &codec.Error{Code: codec.CodeForbidden}) {
		t.Fatalf("fail: %v", err)
	}
	if err := c.Notify(ctx, "note", []string{"hi"}); err != nil {
		t.Fatal(err)
	}
	if n := <-notes; n != `["hi"]` {
		t.Fatalf("note %s", n)
	}
	// Concurrent callers each get their own answer.
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 20 {
				var out []string
				want := strconv.Itoa(g) + "/" + strconv.Itoa(i)
				if err := c.Call(ctx, "echo", []string{want}, &out); err != nil || out[0] != want {
					t.Errorf("got %v %v, want %s", out, err, want)
					return
				}
			}
		})
	}
	wg.Wait()

	seen, authSeen := p.snapshot()
	if len(seen) != 1 || seen[0].Transport != "ws" || !strings.HasPrefix(seen[0].Addr, "127.0.0.1:") || authSeen[0] != "Bearer ws" {
		t.Fatalf("bound %v %v", seen, authSeen)
	}
	if n := s.ws.Len(); n != 1 {
		t.Fatalf("Len %d", n)
	}
	c.Close()
	await(t, ended, "the server's session to end")
	if n := s.ws.Len(); n != 0 {
		t.Fatalf("Len %d once the session's OnClose ran", n) // it leaves before
	}
}

// await waits for ch to be closed or to receive, failing the test after
// 10 seconds (a safety net: the event is expected much sooner).
func await[T any](t *testing.T, ch <-chan T, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s within 10s", what)
	}
}

// counter returns a ping callback for a dialing peer that counts the
// pings it answers and closes ten once it has answered ten.
func counter(answer func() bool) (func(context.Context, []byte) bool, <-chan struct{}) {
	var n atomic.Int32
	ten := make(chan struct{})
	return func(context.Context, []byte) bool {
		if !answer() {
			return false
		}
		if n.Add(1) == 10 {
			close(ten)
		}
		return true
	}, ten
}

func TestWebSocket_oneMessageOrBatchPerMessage(t *testing.T) {
	s := startRPC(t, &conn.Options{Router: rpcRouter(nil)}, nil, nil)
	ws := rawWS(t, s, nil)
	if got := exchange(t, ws, `{"jsonrpc":"2.0","id":1,"method":"echo","params":["a"]}`); got != `{"jsonrpc":"2.0","id":1,"result":["a"]}` {
		t.Fatalf("got %s", got)
	}
	if got := exchange(t, ws, `[{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]},{"jsonrpc":"2.0","method":"note"},{"jsonrpc":"2.0","id":2,"method":"echo","params":[2]}]`); got != `[{"jsonrpc":"2.0","id":1,"result":[1]},{"jsonrpc":"2.0","id":2,"result":[2]}]` {
		t.Fatalf("batch: got %s", got)
	}
	if got := exchange(t, ws, `{"jsonrpc":"2.0",`); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700`) {
		t.Fatalf("parse error: got %s", got)
	}
}

func TestWebSocket_readLimitIsTheSessionFrameLimit(t *testing.T) {
	s := startRPC(t, &conn.Options{Router: rpcRouter(nil), Limits: &codec.Limits{MaxFrameBytes: 100}}, nil, nil)
	ws := rawWS(t, s, nil)
	fits := `{"jsonrpc":"2.0","id":1,"method":"echo","params":["` + strings.Repeat("a", 100-54) + `"]}`
	if len(fits) != 100 {
		t.Fatalf("len %d", len(fits))
	}
	if got := exchange(t, ws, fits); !strings.Contains(got, `"result":["aaaa`) {
		t.Fatalf("at the limit: %s", got)
	}
	// Past it, and far past coder/websocket's own default limit (32 KiB):
	// -32600 with id null, and the session reads on.
	for _, n := range []int{101, 1 << 20} {
		big := `{"jsonrpc":"2.0","id":2,"method":"echo","params":["` + strings.Repeat("b", n) + `"]}`
		if got := exchange(t, ws, big); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600`) {
			t.Fatalf("over the limit: %.200s", got)
		}
		if got := exchange(t, ws, `{"jsonrpc":"2.0","id":3,"method":"echo","params":[3]}`); got != `{"jsonrpc":"2.0","id":3,"result":[3]}` {
			t.Fatalf("after: %s", got)
		}
	}
}

func TestWebSocket_clientReadLimit(t *testing.T) {
	s := startRPC(t, &conn.Options{Router: rpcRouter(nil)}, nil, nil)
	c := dialWS(t, s, &transport.WebSocketOptions{Limits: &codec.Limits{MaxFrameBytes: 200}})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	// The answer exceeds what the client reads: it never arrives.
	err := c.Call(ctx, "echo", []string{strings.Repeat("x", 300)}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	var out []int
	if err := c.Call(context.Background(), "echo", []int{1}, &out); err != nil || out[0] != 1 {
		t.Fatalf("after: %v %v", out, err)
	}
}

func TestWebSocket_keepAliveClosesAPeerThatStopsAnsweringPings(t *testing.T) {
	var closed atomic.Int32
	oneClosed := make(chan struct{}, 2)
	o := &conn.Options{Router: rpcRouter(nil), OnClose: func(*conn.Conn, error) { closed.Add(1); oneClosed <- struct{}{} }}
	s := startRPC(t, o, nil, &transport.WebSocketOptions{PingInterval: 20 * time.Millisecond, PingTimeout: 50 * time.Millisecond})

	var mute atomic.Bool
	onPing, tenMuted := counter(func() bool { return !mute.Load() })
	ws := rawWS(t, s, &websocket.DialOptions{OnPingReceived: onPing})
	readErr := make(chan error, 1)
	onPing2, tenOther := counter(func() bool { return true })
	ws2 := rawWS(t, s, &websocket.DialOptions{OnPingReceived: onPing2})
	go func() {
		// A reader answers pings (coder/websocket does so while reading).
		_, _, err := ws.Read(context.Background())
		readErr <- err
	}()
	go ws2.Read(context.Background())

	// Ten pings each, answered: a missed pong would have ended a session
	// within PingTimeout of the first.
	await(t, tenMuted, "ten pings to the first peer")
	await(t, tenOther, "ten pings to the second peer")
	if closed.Load() != 0 || s.ws.Len() != 2 {
		t.Fatalf("a peer answering pings was closed: %d closed, %d live", closed.Load(), s.ws.Len())
	}
	mute.Store(true)
	select {
	case err := <-readErr:
		if err == nil {
			t.Fatal("read a message")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the mute peer was not closed")
	}
	await(t, oneClosed, "end of the mute peer's session")
	if closed.Load() != 1 || s.ws.Len() != 1 {
		t.Fatalf("%d closed, %d live; want the mute peer's only", closed.Load(), s.ws.Len())
	}
}

func TestWebSocket_keepAliveClosesAPeerThatStopsReading(t *testing.T) {
	var srv atomic.Pointer[rpcServer]
	lenInOnClose := make(chan int, 1)
	o := &conn.Options{Router: rpcRouter(nil), OnClose: func(*conn.Conn, error) { lenInOnClose <- srv.Load().ws.Len() }}
	s := startRPC(t, o, nil, &transport.WebSocketOptions{PingInterval: 20 * time.Millisecond, PingTimeout: 50 * time.Millisecond})
	srv.Store(s)
	rawWS(t, s, nil) // never reads: pings go unanswered
	select {
	case n := <-lenInOnClose:
		if n != 0 {
			t.Fatalf("Len %d in the session's OnClose: it is removed before", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the session of a peer that does not read did not end")
	}
}

func TestWebSocket_clientKeepAliveEndsTheSessionWhenTheServerStopsAnswering(t *testing.T) {
	// A server that reads (so the upgrade holds) but never answers pings.
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{OnPingReceived: func(context.Context, []byte) bool { return false }})
		if err != nil {
			return
		}
		defer ws.CloseNow()
		for {
			if _, _, err := ws.Read(context.Background()); err != nil {
				return
			}
		}
	}))
	defer hs.Close()
	st, err := transport.DialWebSocket(context.Background(), "ws"+strings.TrimPrefix(hs.URL, "http"), &transport.WebSocketOptions{PingInterval: 20 * time.Millisecond, PingTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	c := conn.NewStream(st, nil)
	select {
	case <-c.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("the session outlived an unresponsive server")
	}
}

func TestWebSocketHandler_shutdownAnswersCallsInFlight(t *testing.T) {
	r := rpcRouter(nil)
	started, release := make(chan struct{}), make(chan struct{})
	r.Register("slow", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		close(started)
		<-release
		return "done", nil
	}), nil)
	s := startRPC(t, &conn.Options{Router: r}, nil, nil)
	c := dialWS(t, s, nil)
	res := make(chan error, 1)
	go func() {
		var out string
		err := c.Call(context.Background(), "slow", nil, &out)
		if err == nil && out != "done" {
			err = errors.New("wrong answer " + out)
		}
		res <- err
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- s.ws.Shutdown(ctx) }()
	// Once Shutdown has begun, the handler answers 503 (a plain GET
	// suffices: the check comes before the upgrade): only then does the
	// call in flight finish.
	for i := 0; ; i++ {
		resp, err := http.Get(s.URL + "/ws")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			break
		}
		if i == 1000 {
			t.Fatalf("the handler still answers %d after Shutdown began", resp.StatusCode)
		}
		time.Sleep(2 * time.Millisecond)
	}
	close(release)
	if err := <-shut; err != nil {
		t.Fatal(err)
	}
	if err := <-res; err != nil {
		t.Fatalf("call in flight: %v", err)
	}
	await(t, c.Done(), "end of the client's session after Shutdown")
	if err := c.Wait(); err != nil {
		t.Fatalf("the server's closing was not clean: %v", err)
	}
	if _, err := transport.DialWebSocket(ctx, s.wsURL(), nil); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("dial after Shutdown: %v", err)
	}
}

func TestWebSocketHandler_refusals(t *testing.T) {
	b := conn.BinderFunc(func(context.Context, *conn.Peer) (*conn.Options, error) {
		return nil, codec.NewError(codec.CodeUnauthorized, "")
	})
	s := startRPC(t, b, nil, nil)
	_, err := transport.DialWebSocket(context.Background(), s.wsURL(), nil)
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("refused bind: %v", err)
	}
	// An Origin that is not the server's own nor listed is refused.
	s = startRPC(t, &conn.Options{}, nil, &transport.WebSocketOptions{HostPolicy: transport.HostPolicy{AllowedOrigins: []string{"https://app.example.com"}}})
	for origin, ok := range map[string]bool{"https://evil.example.com": false, "https://app.example.com": true} {
		ws, _, err := websocket.Dial(context.Background(), s.wsURL(), &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {origin}}})
		if (err == nil) != ok {
			t.Errorf("Origin %s: %v", origin, err)
		}
		if err == nil {
			ws.CloseNow()
		}
	}
}

func TestWebSocketHandler_outlivesTheServerTimeouts(t *testing.T) {
	mux := http.NewServeMux()
	ws := transport.NewWebSocketHandler(&conn.Options{Router: rpcRouter(nil)}, nil)
	defer ws.Close()
	mux.Handle("/ws", ws)
	hs := httptest.NewUnstartedServer(mux)
	hs.Config = transport.NewHTTPServer(mux, nil)
	hs.Config.ReadTimeout, hs.Config.WriteTimeout = 50*time.Millisecond, 50*time.Millisecond
	hs.Start()
	defer hs.Close()
	st, err := transport.DialWebSocket(context.Background(), "ws"+strings.TrimPrefix(hs.URL, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	c := conn.NewStream(st, nil)
	defer c.Close()
	time.Sleep(150 * time.Millisecond)
	var out []int
	if err := c.Call(context.Background(), "echo", []int{9}, &out); err != nil || out[0] != 9 {
		t.Fatalf("after the server's timeouts: %v %v", out, err)
	}
}

// TestWebSocket_answersOfEveryFrameLength: the server lays out its own
// frames (7-bit, 16-bit and 64-bit lengths); a standard client reads each.
func TestWebSocket_answersOfEveryFrameLength(t *testing.T) {
	s := startRPC(t, &conn.Options{Router: rpcRouter(nil)}, nil, nil)
	ws := rawWS(t, s, nil)
	ws.SetReadLimit(-1)
	const overhead = len(`{"jsonrpc":"2.0","id":1,"result":[""]}`)
	for _, size := range []int{overhead, 125, 126, 127, 0xffff, 0x10000, 0x10001, 200_000} {
		param := strings.Repeat("x", size-overhead)
		got := exchange(t, ws, `{"jsonrpc":"2.0","id":1,"method":"echo","params":["`+param+`"]}`)
		if want := `{"jsonrpc":"2.0","id":1,"result":["` + param + `"]}`; got != want {
			t.Fatalf("answer of %d bytes: got %d bytes %.80s…", size, len(got), got)
		}
	}
}

// TestWebSocket_pipelinedRequestsAreAllAnswered: requests written ahead of
// any answer, read in bulk by the server, each get their own answer, from
// inline and pooled handlers alike.
func TestWebSocket_pipelinedRequestsAreAllAnswered(t *testing.T) {
	s := startRPC(t, &conn.Options{Router: rpcRouter(nil)}, nil, nil)
	ws := rawWS(t, s, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	const n = 300
	go func() {
		for i := range n {
			method := "echo"
			if i%3 == 0 {
				method = "header" // pooled
			}
			msg := `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"` + method + `","params":["` + strconv.Itoa(i) + `"]}`
			if ws.Write(ctx, websocket.MessageText, []byte(msg)) != nil {
				return
			}
		}
	}()
	seen := map[string]bool{}
	for range n {
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("after %d answers: %v", len(seen), err)
		}
		id, _, _ := strings.Cut(strings.TrimPrefix(string(b), `{"jsonrpc":"2.0","id":`), ",")
		if seen[id] || !strings.Contains(string(b), `"result":`) {
			t.Fatalf("answer %s (seen before: %v)", b, seen[id])
		}
		seen[id] = true
	}
}
