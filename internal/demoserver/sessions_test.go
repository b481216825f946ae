package demoserver

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// sessionClient speaks Streamable HTTP to an in-process demo server.
type sessionClient struct {
	t   *testing.T
	url string
	hc  *http.Client
}

func newSessionClient(t *testing.T, url string) *sessionClient {
	hc := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
	t.Cleanup(hc.CloseIdleConnections)
	return &sessionClient{t, url, hc}
}

// do sends a request to path (with session, unless ""), and returns the
// response with its body read.
func (c *sessionClient) do(method, path, session, body string) (*http.Response, []byte) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.url+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp, b
}

const sessionInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// open starts a session: its id, or "" with the refusal.
func (c *sessionClient) open() (string, *http.Response, []byte) {
	c.t.Helper()
	resp, body := c.do(http.MethodPost, "/mcp", "", sessionInit)
	if resp.StatusCode != http.StatusOK {
		return "", resp, body
	}
	id := resp.Header.Get("Mcp-Session-Id")
	if r, b := c.do(http.MethodPost, "/mcp", id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.StatusCode != http.StatusAccepted {
		c.t.Fatalf("initialized: %d %s", r.StatusCode, b)
	}
	return id, resp, body
}

// works checks that session answers tools/list.
func (c *sessionClient) works(session string) {
	c.t.Helper()
	resp, body := c.do(http.MethodPost, "/mcp", session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"tools":[`) {
		c.t.Fatalf("session %s: %d %s", session, resp.StatusCode, body)
	}
}

// refusedPastLimit checks a refusal of a new session past -max-sessions.
func refusedPastLimit(t *testing.T, resp *http.Response, body []byte, maxN int) {
	t.Helper()
	var msg struct {
		ID    json.RawMessage `json:"id"`
		Error struct {
			Code    int
			Message string
			Data    struct {
				Limit        string
				Max          int
				RetryAfterMs int
			}
		}
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		t.Fatalf("%d %s: %v", resp.StatusCode, body, err)
	}
	e := msg.Error
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || string(msg.ID) != "null" ||
		e.Code != -32000 || !strings.Contains(e.Message, "maxSessions") || e.Data.Limit != "maxSessions" || e.Data.Max != maxN || e.Data.RetryAfterMs <= 0 {
		t.Fatalf("want 503 and -32000 naming maxSessions %d: %d %v %s", maxN, resp.StatusCode, resp.Header, body)
	}
}

// -max-sessions N: the N+1th session (over /mcp or /sse) is refused with
// 503 and an error naming the limit, the first N work on, and a deleted
// one frees its place.
func TestDemoserver_maxSessionsRefusesPastTheLimit(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(), fastIdleCleaner)
	s, err := Start([]string{"-listen", "http://127.0.0.1:0", "-max-sessions", "2"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := newSessionClient(t, s.URL())
	var ids []string
	for range 2 {
		id, resp, body := c.open()
		if id == "" {
			t.Fatalf("session %d: %d %s", len(ids)+1, resp.StatusCode, body)
		}
		ids = append(ids, id)
	}
	_, resp, body := c.open()
	refusedPastLimit(t, resp, body, 2)
	resp, body = c.do(http.MethodGet, "/sse", "", "")
	refusedPastLimit(t, resp, body, 2)
	for _, id := range ids {
		c.works(id)
	}
	if resp, body := c.do(http.MethodDelete, "/mcp", ids[0], ""); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, body)
	}
	id, resp, body := c.open()
	if id == "" {
		t.Fatalf("after a DELETE: %d %s", resp.StatusCode, body)
	}
	c.works(id)
	c.works(ids[1])
}

// -session-idle D: a session unused for D ends (404 from then on) and
// frees its place.
func TestDemoserver_sessionIdleEndsUnusedSessions(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(), fastIdleCleaner)
	s, err := Start([]string{"-listen", "http://127.0.0.1:0", "-max-sessions", "1", "-session-idle", "150ms"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := newSessionClient(t, s.URL())
	first, resp, body := c.open()
	if first == "" {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		id, resp, body := c.open()
		if id != "" {
			c.works(id)
			break
		}
		refusedPastLimit(t, resp, body, 1)
		if time.Now().After(deadline) {
			t.Fatal("the idle session never ended")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if resp, body := c.do(http.MethodPost, "/mcp", first, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the expired session: %d %s", resp.StatusCode, body)
	}
}

func TestStart_sessionFlagsAreChecked(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-max-sessions", "-1"}, "-max-sessions and -max-sessions-per-peer want a number of sessions"},
		{[]string{"-max-sessions-per-peer", "-3"}, "-max-sessions and -max-sessions-per-peer want a number of sessions"},
		{[]string{"-session-idle", "-1s"}, "-session-idle -1s: want a positive duration, 0 for never"},
	} {
		s, err := Start(append([]string{"-listen", "http://127.0.0.1:0"}, tc.args...), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Start(%q): %v, want an error saying %q", tc.args, err, tc.want)
		}
		if s != nil {
			s.Close()
		}
	}
}

// -session-idle holds for /sse too: a session whose client sends nothing
// has its event stream ended.
func TestDemoserver_sessionIdleEndsLegacySSESessions(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(), fastIdleCleaner)
	s, err := Start([]string{"-listen", "http://127.0.0.1:0", "-session-idle", "150ms"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := newSessionClient(t, s.URL())
	req, err := http.NewRequest(http.MethodGet, s.URL()+"/sse", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := (&http.Client{Transport: c.hc.Transport}).Do(req) // no timeout: the stream's end is the test
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /sse: %d", resp.StatusCode)
	}
	ended := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(resp.Body)
		ended <- b
	}()
	select {
	case b := <-ended:
		if !strings.HasPrefix(string(b), "event: endpoint\n") {
			t.Fatalf("stream %q", b)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the idle /sse session never ended")
	}
}
