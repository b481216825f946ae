package streamable_test

import (
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/transport"
)

// heldGETs serves srv over Streamable HTTP in memory, holding the first
// GET until release is called: it returns the URL, the client that dials
// it, a channel closed when that GET arrived, and release.
func heldGETs(t *testing.T, srv *mcp.Server) (url string, client *http.Client, arrived <-chan struct{}, release func()) {
	t.Helper()
	h := streamable.NewHandler(srv, nil)
	got, gate := make(chan struct{}), make(chan struct{})
	first := sync.OnceValue(func() bool { close(got); return true })
	url, client = serveInMemory(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && first() {
			<-gate
		}
		h.ServeHTTP(w, r)
	}))
	release = sync.OnceFunc(func() { close(gate) })
	t.Cleanup(func() { release(); h.Close() }) // before the server closes
	return url, client, got, release
}

// Connect returns only once the server answered the session's GET: the
// stream is open before the session's first request reaches the server,
// so nothing the server sends there after the handshake is missed (a
// server may send a request's answer on a resumed GET stream: the
// conformance suite's sse-retry scenario takes any GET for that). In a
// synctest bubble: with the GET held, Connect is still waiting once
// every goroutine is blocked.
// stateful are the options of a client that holds a GET stream: one of
// the versions with initialize (2026-07-28 has no GET stream).
var stateful = &mcp.ClientOptions{ProtocolVersion: mcp.LatestVersion}

func TestConnect_waitsForTheServerToAnswerItsGET(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, client, arrived, release := heldGETs(t, bubbleServer(t, nil))
		done := make(chan *mcp.ClientSession, 1)
		go func() {
			cs, err := streamable.Connect(t.Context(), mcp.NewClient(nil, stateful), url,
				&streamable.ClientOptions{HTTPClientOptions: transport.HTTPClientOptions{Client: client}})
			must(t, err)
			done <- cs
		}()
		<-arrived
		synctest.Wait()
		select {
		case cs := <-done:
			cs.Close()
			t.Fatal("Connect returned before the server answered the session's GET")
		default:
		}
		release()
		cs := <-done
		defer cs.Close()
		if _, err := cs.CallTool(t.Context(), "echo", map[string]any{"message": "hi"}); err != nil {
			t.Fatal(err)
		}
	})
}

// A server that holds its GET's answer back delays Connect by
// maxListenWait (1s) at most.
func TestConnect_waitsForTheGETOneSecondAtMost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		url, client, _, release := heldGETs(t, bubbleServer(t, nil))
		start := time.Now()
		cs, err := streamable.Connect(t.Context(), mcp.NewClient(nil, stateful), url,
			&streamable.ClientOptions{HTTPClientOptions: transport.HTTPClientOptions{Client: client}})
		must(t, err)
		defer cs.Close()
		defer release() // before Close: the GET ends once it is answered
		if d := time.Since(start); d != time.Second {
			t.Fatalf("Connect took %v with the GET held, want 1s", d)
		}
	})
}
