package scaleout

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/redistest"
	"github.com/mcpwire/mcpwire/mcp"
)

// call25 posts a tools/call of echo with id as the session sid through
// base's /mcp, within ctx. It returns nil for one answer to id, a
// result (right) or a JSON-RPC error (counted in refused: the instance
// could not serve the session just then); an error for anything else:
// no answer, another id, two answers, a wrong text.
func call25(ctx context.Context, hc *http.Client, base, sid string, id int, refused *atomic.Int64) (backend string, err error) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m-%d"}}}`, id, id)
	r, err := postMCP(ctx, hc, base+"/mcp", body, "Mcp-Session-Id", sid, "MCP-Protocol-Version", mcp.Version20251125)
	if r != nil {
		backend = r.backend
	}
	if err != nil {
		return backend, err
	}
	resp, raw := r.Response, r.body
	if n := bytes.Count(raw, fmt.Appendf(nil, `"id":%d,`, id)); n != 1 {
		return backend, fmt.Errorf("id %d: %d answers in status %d: %s", id, n, resp.StatusCode, raw)
	}
	var a struct {
		Error  json.RawMessage `json:"error"`
		Result struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return backend, fmt.Errorf("id %d: status %d: %v: %s", id, resp.StatusCode, err, raw)
	}
	switch {
	case a.Error != nil:
		refused.Add(1)
	case len(a.Result.Content) != 1 || a.Result.Content[0].Text != fmt.Sprintf("m-%d", id):
		return backend, fmt.Errorf("id %d answered %s", id, raw)
	}
	return backend, nil
}

// newSessionRefused checks that, Redis away, an initialize through the
// proxy is refused with 503, Retry-After and -32000: the instance cannot
// record a session the others would know.
func newSessionRefused(t *testing.T, c *cluster) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + mcp.Version20251125 +
		`","capabilities":{},"clientInfo":{"name":"scaleout","version":"1"}}}`
	r, err := postMCP(ctx, c.hc, c.proxy.URL()+"/mcp", body)
	if err != nil {
		t.Fatal(err)
	}
	resp, raw := r.Response, r.body
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !bytes.Contains(raw, []byte(`"code":-32000`)) {
		t.Errorf("initialize with Redis away: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), raw)
	}
}

// TestScaleout_redisKilledUnderSessionLoad: 2025-11-25 sessions, each
// call going to the next instance, while Redis (persistent, as in
// production) is killed with SIGKILL and restarted: every call gets
// exactly one answer within its deadline — a result, or while Redis is
// away a JSON-RPC error from an instance that cannot re-create the
// session — and afterwards every session is served by every instance
// again, none of them restarted.
func TestScaleout_redisKilledUnderSessionLoad(t *testing.T) {
	c := startClusterOn(t, redistest.StartPersistent(t))
	const sessions = 6
	sids := make([]string, sessions)
	for i := range sids {
		sids[i] = open25(t, c.hc, c.proxy.URL()).id
	}
	const n, workers = 600, 6
	const killAt, restartAt = n / 4, n / 2
	deadline := 5 * time.Second
	var refused atomic.Int64
	l := runLoad(t, n, workers, deadline, func(ctx context.Context, id int) (string, error) {
		return call25(ctx, c.hc, c.proxy.URL(), sids[id%sessions], id, &refused)
	}, func(done int) {
		switch done {
		case killAt:
			c.redis.Kill()
			for _, name := range instanceNames {
				c.inst[name].awaitMetric(t, func(v float64) bool { return v == 0 }, "mcpwire_redis_up")
			}
			newSessionRefused(t, c)
		case restartAt:
			c.redis.Restart()
		}
	})
	l.check(t, deadline)
	t.Logf("%d calls, %d answered with an error while Redis was away", n, refused.Load())
	for _, name := range instanceNames {
		in := c.inst[name]
		if !in.running() {
			t.Fatalf("instance %s ended", name)
		}
		if v := in.awaitMetric(t, func(v float64) bool { return v == 1 }, "mcpwire_redis_up"); v != 1 {
			t.Fatalf("instance %s: mcpwire_redis_up %v after Redis came back", name, v)
		}
	}
	// go-redis may take a second to dial again: each session is served
	// by each instance within a few tries.
	for i, sid := range sids {
		for _, name := range instanceNames {
			var err error
			for try := 0; try < 20; try++ {
				var r atomic.Int64
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				_, err = call25(ctx, c.hc, c.inst[name].url, sid, n+i, &r)
				cancel()
				if err == nil && r.Load() == 0 {
					break
				}
				if err == nil {
					err = fmt.Errorf("answered with an error")
				}
				time.Sleep(100 * time.Millisecond)
			}
			if err != nil {
				t.Errorf("session %d on instance %s after the restart: %v", i, name, err)
			}
		}
	}
	if strings.Contains(fmt.Sprint(l.backends), `:0`) {
		t.Errorf("an instance served none of the calls: %v", l.backends)
	}
}
