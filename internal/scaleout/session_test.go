package scaleout

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
)

// on returns the session as a client that sends its requests to base's
// /mcp instead (the same session id).
func (s *session25) on(base string) *session25 {
	c := *s
	c.url = base + "/mcp"
	return &c
}

// TestScaleout_sessionServedByEveryInstance: a 2025-11-25 session opened
// through the proxy is served by every instance, each call going to the
// next one, and a call costs Redis at most one command (the session's
// time to live is renewed at most four times per session timeout: most
// calls cost none).
func TestScaleout_sessionServedByEveryInstance(t *testing.T) {
	c := startCluster(t)
	s := open25(t, c.hc, c.proxy.URL())
	before := c.toolCalls(t)
	commands := c.redisCommands(t)
	const calls = 30
	for i := range calls {
		body := s.call("tools/call", fmt.Sprintf(`{"name":"echo","arguments":{"message":"m-%d"}}`, i))
		if !strings.Contains(body, fmt.Sprintf(`"text":"m-%d"`, i)) {
			t.Fatalf("call %d answered %s", i, body)
		}
	}
	cost := c.redisCommands(t) - commands
	t.Logf("%d calls on a shared session cost Redis %d commands", calls, cost)
	if cost > calls {
		t.Errorf("%d calls on a shared session cost Redis %d commands, want at most one each", calls, cost)
	}
	for _, name := range instanceNames {
		served := c.inst[name].awaitMetric(t, func(v float64) bool { return v-before[name] >= calls/3 },
			"mcpwire_requests_total", "method", "tools/call", "code", "0") - before[name]
		if served != calls/3 {
			t.Errorf("instance %s served %v of the session's %d calls, want %d", name, served, calls, calls/3)
		}
	}
}

// sseEvent is one event of a stream: its id and data.
type sseEvent struct{ id, data string }

// openGET opens the session's standalone stream at base (resuming after
// lastID unless it is empty) and sends its events on the channel
// returned until the stream ends or the test does.
func (s *session25) openGET(base, lastID string) <-chan sseEvent {
	s.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s.t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/mcp", nil)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", s.id)
	req.Header.Set("MCP-Protocol-Version", mcp.Version20251125)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		s.t.Fatalf("GET %s (Last-Event-ID %q): status %d", base, lastID, resp.StatusCode)
	}
	events := make(chan sseEvent, 64)
	go func() {
		defer close(events)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		var e sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if e.data != "" {
					select {
					case events <- e:
					case <-ctx.Done():
						return
					}
				}
				e = sseEvent{}
			case strings.HasPrefix(line, "id:"):
				e.id = strings.TrimSpace(line[3:])
			case strings.HasPrefix(line, "data:"):
				e.data += strings.TrimSpace(line[5:])
			}
		}
	}()
	return events
}

// nextUpdates reads n events of resources/updated from events, within
// 20 s, failing the test on anything else.
func nextUpdates(t *testing.T, events <-chan sseEvent, n int) []sseEvent {
	t.Helper()
	var got []sseEvent
	timeout := time.After(20 * time.Second)
	for len(got) < n {
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatalf("the stream ended after %d of %d events", len(got), n)
			}
			if !strings.Contains(e.data, `"method":"notifications/resources/updated"`) {
				t.Fatalf("event %s: %s", e.id, e.data)
			}
			got = append(got, e)
		case <-timeout:
			t.Fatalf("%d of %d events in 20 s", len(got), n)
		}
	}
	return got
}

// eventNumber splits an event id, "<stream>.<n>", into its stream and n.
func eventNumber(t *testing.T, id string) (string, int) {
	t.Helper()
	i := strings.LastIndexByte(id, '.')
	var n int
	if i <= 0 {
		t.Fatalf("event id %q", id)
	}
	if _, err := fmt.Sscan(id[i+1:], &n); err != nil {
		t.Fatalf("event id %q: %v", id, err)
	}
	return id[:i], n
}

// TestScaleout_getStreamResumedAfterSIGKILL: a session's standalone
// stream, opened on instance a, carries the resource updates its copy on
// instance b sends (b handled its resources/subscribe); a is killed with
// SIGKILL; the client resumes the stream through the proxy with the last
// event id it read, on another instance, and gets every later event
// exactly once: event numbers go on one by one, none lost, none repeated,
// on one stream id.
func TestScaleout_getStreamResumedAfterSIGKILL(t *testing.T) {
	c := startCluster(t, "-watch-interval", "150ms")
	a, b := c.inst["a"], c.inst["b"]
	s := open25(t, c.hc, a.url)
	first := s.openGET(a.url, "")
	s.on(b.url).call("resources/subscribe", `{"uri":"test://watched-resource"}`)
	before := nextUpdates(t, first, 3)
	c.kill("a")
	c.proxy.remove("a")
	last := before[len(before)-1].id
	after := nextUpdates(t, s.openGET(c.proxy.URL(), last), 4)
	stream, prev := eventNumber(t, before[0].id)
	for _, e := range append(before[1:], after...) {
		st, n := eventNumber(t, e.id)
		if st != stream || n != prev+1 {
			t.Errorf("event %s after %s.%d: want %s.%d (none lost, none repeated)", e.id, stream, prev, stream, prev+1)
		}
		prev = n
	}
}

// TestScaleout_rateBudgetShared: with -rate 2 (a burst of two calls, one
// more every half second), a client's calls through the proxy spread
// over three instances draw on one budget: of nine calls made at once,
// at most three pass (the burst, and a call's worth of refill), not the
// six three separate budgets would let through; the others are refused
// with -32011 and a retryAfterMs.
func TestScaleout_rateBudgetShared(t *testing.T) {
	c := startCluster(t, "-rate", "2")
	s := open25(t, c.hc, c.proxy.URL())
	time.Sleep(1100 * time.Millisecond) // the budget full again after initialize
	passed, refused := 0, 0
	for i := range 9 {
		id := 100 + i
		resp, body := s.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m"}}}`, id))
		switch {
		case resp.StatusCode == http.StatusOK && strings.Contains(body, fmt.Sprintf(`"id":%d,"result"`, id)):
			passed++
		case strings.Contains(body, `"code":-32011`) && strings.Contains(body, `"retryAfterMs":`):
			refused++
		default:
			t.Fatalf("call %d: %d %s", i, resp.StatusCode, body)
		}
	}
	if passed < 2 || passed > 3 || passed+refused != 9 {
		t.Errorf("%d of 9 calls passed, %d refused; want 2 or 3 to pass: one budget for the three instances", passed, refused)
	}
}
