package streamable_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// keepAliveHTTP serves a server with a keep-alive over Streamable HTTP
// in memory (rawHTTPInMemory: run it in a synctest bubble) and returns a
// raw peer of it and the server's log.
func keepAliveHTTP(t *testing.T, srv func(*mcp.ServerOptions) *mcp.Server, opts *streamable.Options) (*rawHTTP, *logBuffer) {
	t.Helper()
	logs := new(logBuffer)
	s := srv(&mcp.ServerOptions{
		KeepAlive: mcp.KeepAlive{Interval: 20 * time.Millisecond, Timeout: 100 * time.Millisecond, MaxMissed: 2},
		Conn:      &conn.Options{Logger: logs.Logger()},
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
func nextData(t *testing.T, r *streamable.SSEReader) event {
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
	r := streamable.NewSSEReader(get.Body, 1<<20)
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

// In a synctest bubble (HTTP in memory, virtual time), as above.
func TestKeepAlive_serverPingsOnAPOSTStream(t *testing.T) {
	synctest.Test(t, testKeepAlive_serverPingsOnAPOSTStream)
}

func testKeepAlive_serverPingsOnAPOSTStream(t *testing.T) {
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
	// A client that takes only an event stream: the POST's stream is open
	// from the start (one that also takes JSON gets its answer as JSON,
	// and no ping reaches it while the tool sends nothing).
	post := p.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait"}}`, "Accept", "text/event-stream")
	r := streamable.NewSSEReader(post.Body, 1<<20)
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

// No stream open: no ping reaches the client, and none is missed, for
// ten intervals and two timeouts (on the bubble's clock).
func TestKeepAlive_serverDoesNotPingWithoutAStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ka := mcp.KeepAlive{Interval: 20 * time.Millisecond, Timeout: 100 * time.Millisecond, MaxMissed: 2}
		p := rawHTTPInMemory(t, bubbleServer(t, &mcp.ServerOptions{KeepAlive: ka}), nil)
		p.initialize("2025-11-25")
		time.Sleep(10*ka.Interval + 2*ka.Timeout)
		synctest.Wait()
		if resp := p.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); resp.StatusCode != http.StatusOK {
			t.Fatalf("a session with no stream open was closed: %d", resp.StatusCode)
		}
	})
}

// A client that only pings for four timeouts has its session expire;
// one that lists tools keeps it (on the bubble's clock).
func TestKeepAlive_pingsDoNotKeepAnIdleHTTPSessionAlive(t *testing.T) {
	for _, tc := range []struct {
		body    string
		expires bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, false},
	} {
		t.Run(tc.body, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const timeout = 150 * time.Millisecond
				p := rawHTTPInMemory(t, bubbleServer(t, nil), &streamable.Options{SessionTimeout: timeout})
				p.initialize("2025-11-25")
				expired := false
				for range 4 * timeout / (20 * time.Millisecond) {
					resp := p.post(tc.body)
					resp.Body.Close()
					if expired = resp.StatusCode == http.StatusNotFound; expired {
						break
					}
					time.Sleep(20 * time.Millisecond)
					synctest.Wait()
				}
				if expired != tc.expires {
					t.Fatalf("expired: %v, want %v", expired, tc.expires)
				}
			})
		})
	}
}

func TestKeepAlive_clientOverHTTPClosesAServerThatHangs(t *testing.T) {
	srv := echoServer(t)
	h := streamable.NewHandler(srv, fastRetry)
	var hung atomic.Bool
	var pings atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	defer ts.Close()
	defer h.Close()

	var logs logBuffer
	c := mcp.NewClient(nil, &mcp.ClientOptions{
		ProtocolVersion: mcp.LatestVersion, // 2026-07-28 has no ping
		KeepAlive:       mcp.KeepAlive{Interval: 20 * time.Millisecond, Timeout: 50 * time.Millisecond, MaxMissed: 2},
		Conn:            &conn.Options{Logger: logs.Logger()},
	})
	cs, err := streamable.Connect(context.Background(), c, ts.URL, nil)
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
