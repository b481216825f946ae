package demoserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/httpjson"
	"github.com/mcpwire/mcpwire/internal/rawhttp"
	"github.com/mcpwire/mcpwire/internal/testproc"
)

// The reads of every HTTP endpoint: hostile framing (stalled headers and
// bodies, oversized bodies, Content-Length beside Transfer-Encoding, bad
// chunk sizes) against /mcp, /sse, /rpc, /ws and -fast-rpc's fasthttp
// /rpc. Each is answered (or cut) within -read-timeout, the connection is
// closed, nothing past a bad framing is taken for a request, no answer
// carries an error's text or a socket address, and the server's
// goroutines and descriptors come back to what they were.

// readsTimeout is the -read-timeout the tests serve with; readsCut is
// how long after it a connection may take to be closed on a loaded
// machine.
const (
	readsTimeout = time.Second
	readsCut     = 5 * time.Second
)

// readsServer starts the demo server in this process on HTTP loopback
// with -fast-rpc, -read-timeout readsTimeout and args, and returns it, its
// endpoints' addresses, the request line and header of each endpoint's
// requests (readsRequests) and its logs.
func readsServer(t *testing.T, server string, args ...string) (*Server, *securityServer, map[string]rawRequest, *testproc.LockedBuffer) {
	t.Helper()
	logs := new(testproc.LockedBuffer)
	s, err := Start(securityArgs(server, append([]string{"-read-timeout", readsTimeout.String()}, args...)...), logs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		if t.Failed() {
			t.Logf("the server's log:\n%s", logs)
		}
	})
	_, fast, _ := strings.Cut(logs.String(), " fastrpc=http://")
	fast, _, _ = strings.Cut(fast, "/rpc")
	if fast == "" {
		t.Fatalf("no fastrpc=URL logged:\n%s", logs)
	}
	ss := newSecurityServer(s.URL(), fast)
	return s, ss, readsRequests(t, ss), logs
}

// readsRequests returns, for every endpoint of s, the request line and
// header the reads rows frame their bodies after: the natural request's,
// a POST to a session opened until the test ends for /sse, with Accept on
// /rpc as on /mcp.
func readsRequests(t *testing.T, s *securityServer) map[string]rawRequest {
	t.Helper()
	reqs := map[string]rawRequest{}
	for _, ep := range endpoints {
		r := natural(s, ep)
		switch ep {
		case epSSE:
			r = natural(s, epMCP)
			r.target = readsSSESession(t, s.addr(ep))
		case epRPC:
			r = r.with("Accept", "application/json, text/event-stream")
		}
		r.body = ""
		reqs[ep] = r
	}
	return reqs
}

// readsSSESession opens a legacy /sse stream on base and returns the
// target its POSTs go to; the stream stays open until the test ends.
func readsSSESession(t *testing.T, base string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+base+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	tr := &http.Transport{}
	res, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		res.Body.Close()
		tr.CloseIdleConnections()
	})
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if target, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			return target
		}
	}
	t.Fatalf("/sse: %d, no endpoint event: %v", res.StatusCode, sc.Err())
	return ""
}

// readsResult is what a hostile exchange came to.
type readsResult struct {
	statuses []int    // of the answers read, in order
	bodies   []string // theirs
	closed   bool     // the server closed the connection
	took     time.Duration
}

// readsExchange writes req on a new connection to addr, then reads
// answers until the server closes the connection, for at most readsCut
// plus the read timeout.
func readsExchange(t *testing.T, addr, req string) readsResult {
	t.Helper()
	start := time.Now()
	deadline := start.Add(readsTimeout + readsCut)
	c := rawhttp.Send(t, addr, req, readsTimeout+readsCut)
	defer c.Close()
	var r readsResult
	for {
		if err := c.WaitClose(time.Until(deadline)); err != rawhttp.ErrMore {
			r.closed = err == nil
			break
		}
		res, err := c.ReadResponse()
		if res == nil {
			t.Fatalf("%s: not an HTTP answer after %v: %v", addr, r.statuses, err)
		}
		if err != nil {
			r.closed = true
			break
		}
		r.statuses = append(r.statuses, res.Status)
		r.bodies = append(r.bodies, res.Body)
		if res.Status == http.StatusSwitchingProtocols {
			// A WebSocket now: what the body held is taken for frames,
			// which must end the connection too.
			r.closed = c.Drain(time.Until(deadline)) == nil
			break
		}
	}
	r.took = time.Since(start)
	return r
}

// readsRow is a hostile request: its bytes for an endpoint, given the
// request line and header of the endpoint's requests (r, without a body)
// and its host:port, and what the answers must be (each of statuses; none
// at all is fine when answered is false).
type readsRow struct {
	name     string
	req      func(r rawRequest, host string) string
	answered bool
	ok       func(status int) bool
}

func is4xx(status int) bool { return status >= 400 && status < 500 }

// readsRows are the hostile requests every endpoint gets.
var readsRows = []readsRow{
	{
		name: "stalled-headers",
		req: func(r rawRequest, host string) string {
			return r.method + " " + r.target + " HTTP/1.1\r\nHost: " + host + "\r\nContent-"
		},
		ok: func(s int) bool { return s == http.StatusRequestTimeout || s == http.StatusBadRequest },
	},
	{
		name: "stalled-body",
		req: func(r rawRequest, host string) string {
			return r.head() + "Content-Length: 100\r\n\r\n{\"jsonrpc\":\"2.0\","
		},
		answered: true,
		ok:       is4xx,
	},
	{
		name: "stalled-chunked-body",
		req: func(r rawRequest, host string) string {
			return r.head() + "Transfer-Encoding: chunked\r\n\r\n10\r\n{\"jsonrpc\""
		},
		answered: true,
		ok:       is4xx,
	},
	{
		name: "oversized-body",
		req: func(r rawRequest, host string) string {
			return r.head() + "Content-Length: 1073741824\r\n\r\n{\"jsonrpc\":\"2.0\","
		},
		answered: true,
		ok:       is4xx,
	},
	{
		// RFC 9112 §6.1: answered by Transfer-Encoding, then closed; the
		// request hidden after the chunked body is never served.
		name: "content-length-and-chunked",
		req: func(r rawRequest, host string) string {
			body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
			return r.head() + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n" +
				strconv.FormatInt(int64(len(body)), 16) + "\r\n" + body + "\r\n0\r\n\r\n" +
				"GET /smuggled HTTP/1.1\r\nHost: " + host + "\r\n\r\n"
		},
		answered: true,
		ok:       func(s int) bool { return s != http.StatusNotFound && s < 500 },
	},
	{
		name: "bad-chunk-size",
		req: func(r rawRequest, host string) string {
			return r.head() + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n" +
				"GET /smuggled HTTP/1.1\r\nHost: " + host + "\r\n\r\n"
		},
		answered: true,
		ok:       is4xx,
	},
}

// readsLeaks are what an answer must never tell: an error's text, a
// socket address.
var readsLeaks = []string{"127.0.0.1", "i/o timeout", "read tcp", "EOF", "invalid byte", "chunked"}

// readsMessages are the only texts of a 400 or 413 answering readsRows:
// httpjson's, for a request that could not be read, on every endpoint;
// and the fixed refusals of a request read whole (a POST to /mcp with no
// session) or refused before its body is read (an upgrade to /ws with
// one). None is an error's text.
var readsMessages = []string{httpjson.MsgTooLarge, httpjson.MsgBodyRead, httpjson.MsgRequestRead,
	"Bad Request: the Mcp-Session-Id header is required (initialize first)",
	"Bad Request: a WebSocket upgrade has no body"}

// readsMessage returns the message of the JSON-RPC error a body holds,
// if it holds one.
func readsMessage(body string) (string, bool) {
	var m struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(body), &m) != nil || m.Error == nil {
		return "", false
	}
	return m.Error.Message, true
}

// TestSecurityReads_hostileFramingOnEveryEndpoint runs readsRows against
// every endpoint, and checks that the server's goroutines and descriptors
// come back to what they were.
func TestSecurityReads_hostileFramingOnEveryEndpoint(t *testing.T) {
	for _, server := range httpServers {
		t.Run("http-server="+server, func(t *testing.T) { hostileFramingOnEveryEndpoint(t, server) })
	}
}

func hostileFramingOnEveryEndpoint(t *testing.T, server string) {
	_, s, reqs, _ := readsServer(t, server)
	for _, ep := range endpoints { // warm up: what the first request starts is the baseline's
		r := reqs[ep]
		r.body = "{}"
		readsExchange(t, s.addr(ep), r.bytes())
	}
	goroutines, fds := runtime.NumGoroutine(), readsFDs(t)
	t.Run("rows", func(t *testing.T) { // returns once its parallel rows have
		for _, row := range readsRows {
			for _, ep := range endpoints {
				t.Run(row.name+"/"+ep, func(t *testing.T) {
					t.Parallel()
					r := readsExchange(t, s.addr(ep), row.req(reqs[ep], s.addr(ep)))
					if !r.closed {
						t.Fatalf("the connection is still open %v after it was sent (answers %v)", r.took, r.statuses)
					}
					if row.answered && len(r.statuses) == 0 {
						t.Fatalf("closed without an answer after %v", r.took)
					}
					if len(r.statuses) > 1 {
						t.Fatalf("%d answers %v: what followed was served", len(r.statuses), r.statuses)
					}
					for i, st := range r.statuses {
						if !row.ok(st) {
							t.Errorf("status %d: %s", st, r.bodies[i])
						}
						for _, leak := range readsLeaks {
							if strings.Contains(r.bodies[i], leak) {
								t.Errorf("the answer tells %q: %s", leak, r.bodies[i])
							}
						}
						if msg, ok := readsMessage(r.bodies[i]); ok && (st == http.StatusBadRequest || st == http.StatusRequestEntityTooLarge) &&
							!slices.Contains(readsMessages, msg) {
							t.Errorf("status %d says %q, none of httpjson's messages %q", st, msg, readsMessages)
						}
					}
				})
			}
		}
	})
	t.Run("baseline", func(t *testing.T) {
		// fasthttp keeps an idle worker goroutine for up to 10s.
		deadline := time.Now().Add(30 * time.Second)
		for {
			g, f := runtime.NumGoroutine(), readsFDs(t)
			if g <= goroutines+2 && f <= fds {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				t.Fatalf("goroutines %d (were %d), descriptors %d (were %d):\n%s", g, goroutines, f, fds, buf[:runtime.Stack(buf, true)])
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
}

// readsFDs counts the descriptors this process has open (-1 where that
// cannot be read).
func readsFDs(t *testing.T) int {
	t.Helper()
	des, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(des)
}

// TestSecurityReads_shutdownAnswersRPCWorkCutOff: a POST to /rpc (on
// net/http and on -fast-rpc's fasthttp) whose handler still runs when the
// shutdown's grace is over is answered -32004 (with its id) and status
// 503, not cut off with the connection.
func TestSecurityReads_shutdownAnswersRPCWorkCutOff(t *testing.T) {
	for _, server := range httpServers {
		t.Run("http-server="+server, func(t *testing.T) { shutdownAnswersRPCWorkCutOff(t, server) })
	}
}

func shutdownAnswersRPCWorkCutOff(t *testing.T, server string) {
	s, ss, _, logs := readsServer(t, server, "-shutdown-timeout", "300ms", "-metrics", "127.0.0.1:0")
	_, metricsURL, _ := strings.Cut(logs.String(), " metrics=")
	metricsURL, _, _ = strings.Cut(metricsURL, "\n")
	hc := &http.Client{Transport: &http.Transport{}, Timeout: 20 * time.Second}
	defer hc.CloseIdleConnections()
	type answer struct {
		name   string
		status int
		body   []byte
		err    error
	}
	rpcs := []string{epRPC, epFastRPC}
	got := make(chan answer, len(rpcs))
	for _, ep := range rpcs {
		go func() {
			res, err := hc.Post("http://"+ss.addr(ep)+"/rpc", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":"cut","method":"sleep","params":{"ms":10000}}`))
			if err != nil {
				got <- answer{name: ep, err: err}
				return
			}
			b, err := io.ReadAll(res.Body)
			res.Body.Close()
			got <- answer{ep, res.StatusCode, b, err}
		}()
	}
	// Shut down once both handlers run.
	for deadline := time.Now().Add(10 * time.Second); readsInFlight(t, hc, metricsURL) < len(rpcs); {
		if time.Now().After(deadline) {
			t.Fatal("the sleeps never ran")
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	s.Close()
	for range rpcs {
		a := <-got
		if a.err != nil {
			t.Errorf("%s: the POST lost its answer: %v", a.name, a.err)
			continue
		}
		var msg struct {
			ID    json.RawMessage `json:"id"`
			Error *codec.Error    `json:"error"`
		}
		if err := json.Unmarshal(a.body, &msg); err != nil || msg.Error == nil || msg.Error.Code != codec.CodeAbandoned || string(msg.ID) != `"cut"` ||
			a.status != http.StatusServiceUnavailable {
			t.Errorf("%s: %d %s, want 503 and -32004", a.name, a.status, a.body)
		}
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("shut down in %v with a 300ms grace", took)
	}
}

// readsInFlight returns the handlers in flight the server's metrics count.
func readsInFlight(t *testing.T, hc *http.Client, url string) int {
	t.Helper()
	res, err := hc.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "mcpwire_in_flight "); ok {
			n, _ := strconv.ParseFloat(v, 64)
			return int(n)
		}
	}
	return 0
}
