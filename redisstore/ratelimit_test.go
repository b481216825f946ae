package redisstore_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/time/rate"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/redistest"
	"github.com/mcpwire/mcpwire/internal/testproc"
	"github.com/mcpwire/mcpwire/middleware"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/redisstore"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// countHook counts the commands a go-redis client sends (a script's
// EVALSHA is one; a pipeline's commands each count).
type countHook struct{ n atomic.Int64 }

func (h *countHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *countHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}
func (h *countHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}

// counted returns another instance's store on srv whose commands hook
// counts.
func counted(t *testing.T, srv *redistest.Server, instance string) (*redisstore.Store, *countHook) {
	t.Helper()
	st := storeOn(t, srv, instance)
	h := &countHook{}
	st.Client().AddHook(h)
	return st, h
}

// rpcEndpoint serves echo over plain JSON-RPC over HTTP, rate limited by
// mw, and returns its URL.
func rpcEndpoint(t *testing.T, mw router.Middleware) string {
	t.Helper()
	r := router.New()
	r.Use(mw)
	if err := r.Register("echo", router.HandlerFunc(func(context.Context, *router.Request) (any, error) { return "ok", nil }), nil); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(transport.NewHTTPHandler(&conn.Options{Router: r, Pool: newPool(t)}, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

// newPool returns an executor of the test's own, closed when it ends
// (the shared one's workers outlive their last user by seconds: goleak
// would see them).
func newPool(t *testing.T) *pool.Pool {
	t.Helper()
	p, err := pool.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	return p
}

// rpcAnswer is a JSON-RPC answer over HTTP.
type rpcAnswer struct {
	status int
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int `json:"code"`
		Data struct {
			RetryAfterMs int `json:"retryAfterMs"`
		} `json:"data"`
	} `json:"error"`
}

// echo calls echo at url; it fails the test past 3 s (the store's
// timeout is 1 s).
func echo(t *testing.T, url string) rpcAnswer {
	t.Helper()
	start := time.Now()
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"echo"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("a call took %v", d)
	}
	a := rpcAnswer{status: resp.StatusCode}
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatalf("%d %s: %v", resp.StatusCode, body, err)
	}
	return a
}

// allowed reports whether a is a result; it fails the test unless a is
// either that or a -32011 (429) whose retryAfterMs is in (0, max].
func allowed(t *testing.T, a rpcAnswer, maxMs int) bool {
	t.Helper()
	switch {
	case a.Error == nil && a.status == http.StatusOK:
		return true
	case a.Error != nil && a.Error.Code == -32011 && a.status == http.StatusTooManyRequests:
		if ms := a.Error.Data.RetryAfterMs; ms <= 0 || ms > maxMs {
			t.Errorf("retryAfterMs %d, want in (0, %d]", ms, maxMs)
		}
		return false
	}
	t.Fatalf("answer %d %+v", a.status, a)
	return false
}

// TestRateBudgets_sharedByTwoInstances: two endpoints, each with its own
// store on one redis-server, give a peer (its IP address) one budget;
// with Redis killed each limits alone, answering within a bound; once it
// is back the budget is shared again, without new stores.
func TestRateBudgets_sharedByTwoInstances(t *testing.T) {
	const burst, every = 3, time.Minute
	srv := redistest.Start(t)
	var logs [2]*testproc.LockedBuffer
	var urls [2]string
	var hooks [2]*countHook
	for i, name := range []string{"a", "b"} {
		st, h := counted(t, srv, name)
		hooks[i], logs[i] = h, &testproc.LockedBuffer{}
		urls[i] = rpcEndpoint(t, middleware.RateLimit(rate.Every(every), burst, &middleware.RateOptions{
			Store:  st.RateBudgets("calls"),
			Logger: slog.New(slog.NewTextHandler(logs[i], nil)),
		}))
	}
	maxMs := int(every / time.Millisecond)

	// One budget: burst calls pass across both, the next is refused.
	for i := range burst {
		if a := echo(t, urls[i%2]); !allowed(t, a, maxMs) {
			t.Fatalf("call %d of the burst refused: %+v", i, a.Error)
		}
	}
	before := hooks[0].n.Load() + hooks[1].n.Load()
	for i := range 2 {
		if allowed(t, echo(t, urls[i]), maxMs) {
			t.Fatalf("instance %d allowed a call past the shared burst", i)
		}
	}
	if n := hooks[0].n.Load() + hooks[1].n.Load() - before; n != 2 {
		t.Errorf("two rate-limited calls cost %d Redis commands, want 2", n)
	}

	// Redis down: each instance limits alone, with a burst of its own.
	srv.Kill()
	for i := range 2 {
		for j := range burst {
			if !allowed(t, echo(t, urls[i]), maxMs) {
				t.Fatalf("Redis down: instance %d refused call %d of its own burst", i, j)
			}
		}
		if allowed(t, echo(t, urls[i]), maxMs) {
			t.Fatalf("Redis down: instance %d allowed a call past its burst", i)
		}
		if got := strings.Count(logs[i].String(), "store failed"); got != 1 {
			t.Errorf("instance %d logged the failure %d times, want once:\n%s", i, got, logs[i])
		}
	}

	// Redis back (empty): after RateStoreRetry each instance asks the
	// store again. Their local budgets are spent (and refill in a
	// minute), so the first call each allows is the store's.
	srv.Restart()
	deadline := time.Now().Add(10 * time.Second)
	for i := range 2 {
		for !allowed(t, echo(t, urls[i]), maxMs) {
			if time.Now().After(deadline) {
				t.Fatalf("instance %d: the shared budget did not come back", i)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	for i := 2; i < burst; i++ {
		if !allowed(t, echo(t, urls[i%2]), maxMs) {
			t.Fatalf("after the restart, call %d of the shared burst was refused", i)
		}
	}
	for i := range 2 {
		if allowed(t, echo(t, urls[i]), maxMs) {
			t.Fatalf("after the restart, instance %d allowed a call past the shared burst", i)
		}
	}
	if !strings.Contains(logs[0].String(), "answers again") {
		t.Errorf("instance a did not log the recovery:\n%s", logs[0])
	}
}

// TestRateBudgets_gcra checks the budget's arithmetic on Redis's clock: a
// burst, then a refusal whose wait is one interval, a refused call costs
// nothing, and the key lives no longer than the refill time.
func TestRateBudgets_gcra(t *testing.T) {
	st, _ := newStore(t, "a")
	b := st.RateBudgets("gcra")
	ctx := context.Background()
	for i := range 4 {
		ok, wait, err := b.Allow(ctx, "peer", 2, 4) // 500 ms apart, burst 4
		if err != nil || !ok || wait != 0 {
			t.Fatalf("call %d of the burst: %v %v %v", i, ok, wait, err)
		}
	}
	var first time.Duration
	for i := range 3 {
		ok, wait, err := b.Allow(ctx, "peer", 2, 4)
		if err != nil || ok || wait <= 0 || wait > 500*time.Millisecond {
			t.Fatalf("past the burst: %v %v %v, want refused within 500ms", ok, wait, err)
		}
		if i == 0 {
			first = wait
		} else if wait > first {
			t.Errorf("a refused call cost something: wait %v after %v", wait, first)
		}
	}
	if ok, _, err := b.Allow(ctx, "other", 2, 4); err != nil || !ok {
		t.Errorf("another key: %v %v", ok, err)
	}
	ttl, err := st.Client().PTTL(ctx, st.Prefix()+"rate:gcra:peer").Result()
	if err != nil || ttl <= 0 || ttl > 2*time.Second {
		t.Errorf("the key's TTL is %v (%v), want in (0, 2s]", ttl, err)
	}
	for _, r := range []rate.Limit{0, -1, rate.Inf} {
		if _, _, err := b.Allow(ctx, "peer", r, 1); err == nil {
			t.Errorf("rate %v: no error", r)
		}
	}
}
