package scaleout

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
)

// call26 posts to base's /mcp a 2026-07-28 tools/call of echo, stateless
// (no initialize, no session), with id, within ctx. It returns the
// backend the proxy named (none when base is an instance), or an error
// saying what was wrong with the answer: a status but 200, another id, a
// JSON-RPC error, another text.
func call26(ctx context.Context, hc *http.Client, base string, id int) (backend string, err error) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m-%d"},`+
		`"_meta":{%q:%q,"io.modelcontextprotocol/clientCapabilities":{}}}}`, id, id, mcp.MetaProtocolVersion, mcp.Version20260728)
	r, err := postMCP(ctx, hc, base+"/mcp", body,
		"MCP-Protocol-Version", mcp.Version20260728, "Mcp-Method", "tools/call", "Mcp-Name", "echo")
	if r != nil {
		backend = r.backend
	}
	if err != nil {
		return backend, err
	}
	resp, raw := r.Response, r.body
	if resp.StatusCode != http.StatusOK {
		return backend, fmt.Errorf("id %d: status %d: %s", id, resp.StatusCode, raw)
	}
	var a struct {
		ID     int             `json:"id"`
		Error  json.RawMessage `json:"error"`
		Result struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return backend, fmt.Errorf("id %d: %v: %s", id, err, raw)
	}
	if a.ID != id || a.Error != nil || len(a.Result.Content) != 1 || a.Result.Content[0].Text != fmt.Sprintf("m-%d", id) {
		return backend, fmt.Errorf("id %d answered %s", id, raw)
	}
	return backend, nil
}

// load is the outcome of runLoad.
type load struct {
	answers  []atomic.Int32 // by id: answers that were right
	errs     []error        // by id: the last error, if any
	slowest  time.Duration
	backends map[string]int // answers by backend
}

// runLoad makes calls with ids 0…n-1 through call, workers at a time,
// each within deadline, and tells answered (on the test's goroutine) the
// number of calls done so far after each one.
func runLoad(t *testing.T, n, workers int, deadline time.Duration, call func(ctx context.Context, id int) (string, error), answered func(done int)) *load {
	t.Helper()
	l := &load{answers: make([]atomic.Int32, n), errs: make([]error, n), backends: map[string]int{}}
	var (
		next atomic.Int64
		mu   sync.Mutex
		wg   sync.WaitGroup
	)
	done := make(chan struct{}, n)
	for range workers {
		wg.Go(func() {
			for id := int(next.Add(1) - 1); id < n; id = int(next.Add(1) - 1) {
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				start := time.Now()
				backend, err := call(ctx, id)
				took := time.Since(start)
				cancel()
				mu.Lock()
				l.slowest = max(l.slowest, took)
				if err != nil {
					l.errs[id] = err
				} else {
					l.answers[id].Add(1)
					l.backends[backend]++
				}
				mu.Unlock()
				done <- struct{}{}
			}
		})
	}
	for i := 1; i <= n; i++ {
		<-done
		if answered != nil {
			answered(i)
		}
	}
	wg.Wait()
	return l
}

// check fails the test unless every call was answered rightly, exactly
// once, within deadline.
func (l *load) check(t *testing.T, deadline time.Duration) {
	t.Helper()
	bad := 0
	for id := range l.answers {
		if got := l.answers[id].Load(); got != 1 {
			bad++
			if bad <= 5 {
				t.Errorf("id %d: %d right answers, want 1 (last error: %v)", id, got, l.errs[id])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d calls not answered exactly once", bad, len(l.answers))
	}
	if l.slowest > deadline {
		t.Errorf("a call took %v, past its deadline %v", l.slowest, deadline)
	}
}

// toolCalls returns how many tools/call each instance has answered with
// a result.
func (c *cluster) toolCalls(t *testing.T) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for name, in := range c.inst {
		out[name] = in.value(t, "mcpwire_requests_total", "method", "tools/call", "code", "0")
	}
	return out
}

// TestScaleout_statelessCallsSpreadEvenly: 2026-07-28 stateless
// tools/call through the round-robin proxy are served by every instance,
// each a third of them (±10 %), as each instance's own metrics count
// them, and as the proxy sent them. They cost Redis nothing: the
// redis-server runs no command while they are served.
func TestScaleout_statelessCallsSpreadEvenly(t *testing.T) {
	c := startCluster(t)
	const n, workers = 300, 6
	deadline := 10 * time.Second
	before := c.toolCalls(t) // before redisCommands: a scrape PINGs Redis
	commands := c.redisCommands(t)
	l := runLoad(t, n, workers, deadline, func(ctx context.Context, id int) (string, error) {
		return call26(ctx, c.hc, c.proxy.URL(), id)
	}, nil)
	l.check(t, deadline)
	if d := c.redisCommands(t) - commands; d != 0 {
		t.Errorf("%d stateless tools/call cost Redis %d commands, want none", n, d)
	}
	third := float64(n) / float64(len(instanceNames))
	total := 0.0
	for _, name := range instanceNames {
		in := c.inst[name]
		// An answer may be counted just after it is sent.
		served := in.awaitMetric(t, func(v float64) bool { return v-before[name] >= float64(l.backends[name]) },
			"mcpwire_requests_total", "method", "tools/call", "code", "0") - before[name]
		total += served
		if served < 0.9*third || served > 1.1*third {
			t.Errorf("instance %s served %v of %d calls, want %v ±10%%", name, served, n, third)
		}
		if served != float64(l.backends[name]) {
			t.Errorf("instance %s counts %v calls, the proxy sent it %d", name, served, l.backends[name])
		}
	}
	if total != n {
		t.Errorf("the instances count %v calls together, want %d", total, n)
	}
}

// TestScaleout_redisKilledUnderStatelessLoad: Redis killed with SIGKILL
// and restarted while stateless calls run through the proxy: every call
// is answered exactly once (by id) within its deadline, each instance
// sees Redis go (mcpwire_redis_up 0) and come back (1) without being
// restarted, and they all serve on afterwards.
func TestScaleout_redisKilledUnderStatelessLoad(t *testing.T) {
	c := startCluster(t)
	const n, workers = 600, 6
	const killAt, restartAt = n / 4, n / 2
	deadline := 5 * time.Second
	for _, name := range instanceNames {
		if v := c.inst[name].value(t, "mcpwire_redis_up"); v != 1 {
			t.Fatalf("instance %s: mcpwire_redis_up %v before the kill, want 1", name, v)
		}
	}
	l := runLoad(t, n, workers, deadline, func(ctx context.Context, id int) (string, error) {
		return call26(ctx, c.hc, c.proxy.URL(), id)
	}, func(done int) {
		switch done {
		case killAt:
			c.redis.Kill()
			for _, name := range instanceNames {
				if v := c.inst[name].awaitMetric(t, func(v float64) bool { return v == 0 }, "mcpwire_redis_up"); v != 0 {
					t.Errorf("instance %s: mcpwire_redis_up %v with Redis killed, want 0", name, v)
				}
			}
		case restartAt:
			c.redis.Restart()
		}
	})
	l.check(t, deadline)
	for _, name := range instanceNames {
		in := c.inst[name]
		if !in.running() {
			t.Fatalf("instance %s ended", name)
		}
		if v := in.awaitMetric(t, func(v float64) bool { return v == 1 }, "mcpwire_redis_up"); v != 1 {
			t.Errorf("instance %s: mcpwire_redis_up %v after Redis came back, want 1", name, v)
		}
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		if _, err := call26(ctx, c.hc, in.url, n); err != nil {
			t.Errorf("instance %s after the restart: %v", name, err)
		}
		cancel()
	}
}
