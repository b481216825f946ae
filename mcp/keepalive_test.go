package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/testproc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// logBuffer collects what a logger writes, for the tests to look at.
type logBuffer struct{ testproc.LockedBuffer }

func (l *logBuffer) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

// waitErr waits for a session's end and returns why.
func waitErr(t *testing.T, wait func() error) error {
	t.Helper()
	ch := make(chan error, 1)
	go func() { ch <- wait() }()
	select {
	case err := <-ch:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end")
		return nil
	}
}

// wireMsg is a JSON-RPC message as the raw peers of these tests read it.
type wireMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// In a synctest bubble (io.Pipe, virtual time): the three pings must be
// answered within the 50 ms timeout, which a loaded machine need not do.
func TestKeepAlive_serverPingsOverStdioAndClosesASilentClient(t *testing.T) {
	synctest.Test(t, testKeepAlive_serverPingsOverStdioAndClosesASilentClient)
}

func testKeepAlive_serverPingsOverStdioAndClosesASilentClient(t *testing.T) {
	var logs logBuffer
	srv := mcp.NewServer(nil, &mcp.ServerOptions{
		KeepAlive: mcp.KeepAlive{Interval: 10 * time.Millisecond, Timeout: 50 * time.Millisecond, MaxMissed: 2},
		Conn:      &conn.Options{Logger: logs.logger()},
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), &transport.Stdio{R: inR, W: outW}) }()
	defer inW.Close()

	io.WriteString(inW, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"quiet-one","version":"1"}}}`+"\n")
	lines := bufio.NewScanner(outR)
	answered := 0
	for answered < 3 && lines.Scan() {
		var m wireMsg
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if string(m.ID) == `"init"` {
			io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
			continue
		}
		if m.Method != "ping" {
			t.Fatalf("unexpected %s", lines.Bytes())
		}
		io.WriteString(inW, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{}}`+"\n")
		answered++
	}
	if answered != 3 {
		t.Fatalf("%d pings answered: %v; log %s", answered, lines.Err(), logs.String())
	}
	// The client falls silent: it reads but answers nothing.
	go io.Copy(io.Discard, outR)
	if err := waitErr(t, func() error { return <-done }); !errors.Is(err, mcp.ErrPingTimeout) {
		t.Fatalf("Run returned %v, want ErrPingTimeout", err)
	}
	if l := logs.String(); !strings.Contains(l, "did not answer pings") || !strings.Contains(l, "missed=2") || !strings.Contains(l, "client=quiet-one") {
		t.Fatalf("log: %s", l)
	}
}

// pingCounter counts the pings that cross a stream.
type pingCounter struct {
	io.ReadWriteCloser
	n atomic.Int32
}

func (c *pingCounter) Read(p []byte) (int, error) {
	n, err := c.ReadWriteCloser.Read(p)
	c.n.Add(int32(bytes.Count(p[:n], []byte(`"method":"ping"`))))
	return n, err
}

// In a synctest bubble (io.Pipe, virtual time).
func TestKeepAlive_clientPingsOverStdio(t *testing.T) {
	synctest.Test(t, testKeepAlive_clientPingsOverStdio)
}

func testKeepAlive_clientPingsOverStdio(t *testing.T) {
	srv := echoServer(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	counted := &pingCounter{ReadWriteCloser: &transport.Stdio{R: inR, W: outW}}
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), counted) }()

	c := mcp.NewClient(nil, &mcp.ClientOptions{KeepAlive: mcp.KeepAlive{Interval: 10 * time.Millisecond, Timeout: 5 * time.Second}})
	cs, err := c.ConnectIO(context.Background(), &transport.Stdio{R: outR, W: inW})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for counted.n.Load() < 5 {
		if time.Now().After(deadline) {
			t.Fatalf("%d pings reached the server", counted.n.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := cs.CallTool(context.Background(), "echo", map[string]string{"message": "still here"}); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	if err := cs.Wait(); err != nil {
		t.Fatalf("a session closed by its client ended with %v", err)
	}
	<-done
}

// silentServer answers initialize and never answers ping: a server that
// hangs. It serves the end of a pipe.
func silentServer(t *testing.T, mc conn.MessageConn) {
	t.Helper()
	r := router.New()
	r.Register("initialize", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		return json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"hung","version":"1"}}`), nil
	}), nil)
	r.Register("ping", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}), nil)
	r.Register("notifications/initialized", router.HandlerFunc(func(context.Context, *router.Request) (any, error) { return nil, nil }), nil)
	c := conn.NewStream(conn.NewMessageStream(mc, nil), &conn.Options{Router: r})
	t.Cleanup(func() { c.Close() })
}

// In a synctest bubble (conn.Pipe, virtual time): the session ends after
// exactly three missed pings, each 30 ms.
func TestKeepAlive_clientClosesASilentServer(t *testing.T) {
	synctest.Test(t, testKeepAlive_clientClosesASilentServer)
}

func testKeepAlive_clientClosesASilentServer(t *testing.T) {
	a, b := conn.Pipe()
	silentServer(t, b)
	var logs logBuffer
	c := mcp.NewClient(nil, &mcp.ClientOptions{
		KeepAlive: mcp.KeepAlive{Interval: 10 * time.Millisecond, Timeout: 30 * time.Millisecond, MaxMissed: 3},
		Conn:      &conn.Options{Logger: logs.logger()},
	})
	start := time.Now()
	cs, err := c.Connect(context.Background(), conn.NewMessageStream(a, nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := waitErr(t, cs.Wait); !errors.Is(err, mcp.ErrPingTimeout) {
		t.Fatalf("Wait: %v, want ErrPingTimeout", err)
	}
	if d := time.Since(start); d < 3*30*time.Millisecond || d > 3*(10+30)*time.Millisecond {
		t.Fatalf("closed after %v: want three pings missed, each within an interval and a timeout", d)
	}
	if l := logs.String(); !strings.Contains(l, "did not answer pings") || !strings.Contains(l, "missed=3") || !strings.Contains(l, "server=hung") {
		t.Fatalf("log: %s", l)
	}
}

// keepAliveHTTP serves a server with a keep-alive over Streamable HTTP
// in memory (rawHTTPInMemory: run it in a synctest bubble) and returns a
// raw peer of it and the server's log.
func keepAliveHTTP(t *testing.T, srv func(*mcp.ServerOptions) *mcp.Server, opts *mcp.HTTPOptions) (*rawHTTP, *logBuffer) {
	t.Helper()
	logs := new(logBuffer)
	s := srv(&mcp.ServerOptions{
		KeepAlive: mcp.KeepAlive{Interval: 20 * time.Millisecond, Timeout: 100 * time.Millisecond, MaxMissed: 2},
		Conn:      &conn.Options{Logger: logs.logger()},
	})
	return rawHTTPInMemory(t, s, opts), logs
}

// answerPing POSTs the answer to a ping event.
func answerPing(t *testing.T, p *rawHTTP, ev event) {
	t.Helper()
	var m wireMsg
	if err := json.Unmarshal([]byte(ev.data), &m); err != nil || m.Method != "ping" {
		t.Fatalf("not a ping: %+v", ev)
	}
	resp := p.post(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{}}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("answering a ping: %d", resp.StatusCode)
	}
}

// nextData reads a stream's next event that has data (not a priming one).
func nextData(t *testing.T, r *mcp.SSEReader) event {
	t.Helper()
	for {
		if ev := nextEvent(t, r); ev.data != "" {
			return ev
		}
	}
}

// In a synctest bubble (HTTP in memory, virtual time): the test's answers
// to pings are never late, however loaded the machine.
func TestKeepAlive_serverPingsOnTheGETStreamAndClosesASilentClient(t *testing.T) {
	synctest.Test(t, testKeepAlive_serverPingsOnTheGETStreamAndClosesASilentClient)
}

func testKeepAlive_serverPingsOnTheGETStreamAndClosesASilentClient(t *testing.T) {
	p, logs := keepAliveHTTP(t, func(o *mcp.ServerOptions) *mcp.Server { return mcp.NewServer(nil, o) }, nil)
	p.initialize("2025-11-25")
	get := p.do(http.MethodGet, "")
	if get.StatusCode != http.StatusOK {
		t.Fatalf("GET: %d", get.StatusCode)
	}
	r := mcp.NewSSEReader(get.Body, 1<<20)
	for range 3 {
		answerPing(t, p, nextData(t, r))
	}
	// The client stops answering: the session ends, and its stream.
	streamEnds(t, r, "the GET stream outlived the silent client's session")
	resp := p.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the session was not closed: %d", resp.StatusCode)
	}
	resp.Body.Close()
	if l := logs.String(); !strings.Contains(l, "did not answer pings") || !strings.Contains(l, "transport=http") {
		t.Fatalf("log: %s", l)
	}
}

// In a synctest bubble (HTTP in memory, virtual time): the 200 ms with no
// stream open are exactly ten intervals and two timeouts, and the test's
// answers to pings are never late.
func TestKeepAlive_serverPingsOnAPOSTStreamAndNotWithoutOne(t *testing.T) {
	synctest.Test(t, testKeepAlive_serverPingsOnAPOSTStreamAndNotWithoutOne)
}

func testKeepAlive_serverPingsOnAPOSTStreamAndNotWithoutOne(t *testing.T) {
	release := make(chan struct{})
	p, _ := keepAliveHTTP(t, func(o *mcp.ServerOptions) *mcp.Server {
		srv := mcp.NewServer(nil, o)
		must(t, srv.AddTool(&mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released"}}}, nil
		}))
		return srv
	}, nil)
	p.initialize("2025-11-25")

	// No stream open: nothing reaches the client, nothing is missed.
	time.Sleep(200 * time.Millisecond) // ten intervals, two timeouts
	if resp := p.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("a session with no stream open was closed: %d", resp.StatusCode)
	}

	post := p.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait"}}`)
	r := mcp.NewSSEReader(post.Body, 1<<20)
	for range 2 {
		answerPing(t, p, nextData(t, r))
	}
	close(release)
	for {
		ev := nextData(t, r)
		if strings.Contains(ev.data, `"released"`) {
			break
		}
		answerPing(t, p, ev) // a ping may precede the answer
	}
}

func TestKeepAlive_pingsDoNotKeepAnIdleHTTPSessionAlive(t *testing.T) {
	for _, tc := range []struct {
		body    string
		expires bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, false},
	} {
		// In a synctest bubble (HTTP in memory, virtual time): the calls come
		// every 20 ms exactly, never 150 ms apart on a loaded machine.
		t.Run(tc.body, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := rawHTTPInMemory(t, echoServer(t), &mcp.HTTPOptions{SessionTimeout: 150 * time.Millisecond})
				p.initialize("2025-11-25")
				expired := false
				for end := time.Now().Add(600 * time.Millisecond); time.Now().Before(end) && !expired; {
					resp := p.post(tc.body)
					resp.Body.Close()
					expired = resp.StatusCode == http.StatusNotFound
					time.Sleep(20 * time.Millisecond)
				}
				if expired != tc.expires {
					t.Fatalf("expired: %v, want %v", expired, tc.expires)
				}
			})
		})
	}
}

// In a synctest bubble (HTTP in memory, virtual time): the pings before the
// server hangs are answered within the 50 ms timeout, however loaded the
// machine.
func TestKeepAlive_clientOverHTTPClosesAServerThatHangs(t *testing.T) {
	synctest.Test(t, testKeepAlive_clientOverHTTPClosesAServerThatHangs)
}

func testKeepAlive_clientOverHTTPClosesAServerThatHangs(t *testing.T) {
	srv := echoServer(t)
	h := mcp.NewStreamableHTTPHandler(srv, fastRetry)
	var hung atomic.Bool
	var pings atomic.Int32
	url, client := serveInMemory(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"method":"ping"`)) {
				pings.Add(1)
				if hung.Load() {
					<-r.Context().Done()
					return
				}
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { h.Close() }) // before the server closes

	var logs logBuffer
	c := mcp.NewClient(nil, &mcp.ClientOptions{
		KeepAlive: mcp.KeepAlive{Interval: 20 * time.Millisecond, Timeout: 50 * time.Millisecond, MaxMissed: 2},
		Conn:      &conn.Options{Logger: logs.logger()},
	})
	cs, err := c.ConnectHTTP(context.Background(), url, &mcp.HTTPClientOptions{HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	deadline := time.Now().Add(10 * time.Second)
	for pings.Load() < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("%d pings reached the server", pings.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := cs.CallTool(context.Background(), "echo", map[string]string{"message": "alive"}); err != nil {
		t.Fatal(err)
	}
	hung.Store(true)
	if err := waitErr(t, cs.Wait); !errors.Is(err, mcp.ErrPingTimeout) {
		t.Fatalf("Wait: %v, want ErrPingTimeout", err)
	}
	if !strings.Contains(logs.String(), "did not answer pings") {
		t.Fatalf("log: %s", logs.String())
	}
}
