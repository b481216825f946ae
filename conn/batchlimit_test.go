package conn_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

// concurrency counts the handlers running at once and the most seen.
type concurrency struct {
	mu        sync.Mutex
	now, most int
}

func (c *concurrency) enter() {
	c.mu.Lock()
	c.now++
	c.most = max(c.most, c.now)
	c.mu.Unlock()
}

func (c *concurrency) leave() {
	c.mu.Lock()
	c.now--
	c.mu.Unlock()
}

// running returns how many run now, and the most that ran at once.
func (c *concurrency) running() (now, most int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now, c.most
}

// limitRouter serves two pooled methods that count themselves in cc:
// "hold" returns once gate is closed, "nap" after 10ms.
func limitRouter(cc *concurrency, gate <-chan struct{}) *router.Router {
	r := router.New()
	r.Register("hold", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		cc.enter()
		defer cc.leave()
		<-gate
		return codec.Raw("true"), nil
	}), nil)
	r.Register("nap", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		cc.enter()
		defer cc.leave()
		time.Sleep(10 * time.Millisecond)
		return codec.Raw("true"), nil
	}), nil)
	return r
}

// batchOf returns a batch of n calls of method, with ids first … first+n-1.
func batchOf(method string, first, n int) string {
	calls := make([]string, n)
	for i := range calls {
		calls[i] = `{"jsonrpc":"2.0","id":` + strconv.Itoa(first+i) + `,"method":"` + method + `"}`
	}
	return "[" + strings.Join(calls, ",") + "]"
}

// checkBatch checks a batch response: n elements with ids first …
// first+n-1 in order, the first ok of them results, the rest -32000 with
// a retry hint.
func checkBatch(t *testing.T, v any, first, n, ok int) {
	t.Helper()
	arr, isArr := v.([]any)
	if !isArr || len(arr) != n {
		t.Fatalf("want a batch response of %d, got %v", n, v)
	}
	for i, el := range arr {
		m := el.(map[string]any)
		if id, _ := m["id"].(float64); int(id) != first+i {
			t.Errorf("element %d has id %v, want %d: answers out of order", i, m["id"], first+i)
		}
		if i < ok {
			if m["result"] != true {
				t.Errorf("element %d: %v, want a result", i, m)
			}
			continue
		}
		e, _ := m["error"].(map[string]any)
		data, _ := e["data"].(map[string]any)
		if code, _ := e["code"].(float64); code != -32000 || data["retryAfterMs"] == nil {
			t.Errorf("element %d: %v, want -32000 with data.retryAfterMs", i, m)
		}
	}
}

// A batch counts as its number of elements against MaxInFlight and the
// Admission: under a limit of 4 with Reject, a batch of 10 gets 4 results
// (2 if two requests already hold slots) and -32000 for exactly the other
// elements, answered in order. The slots of the refused elements are not
// kept: once everything is done, a batch of 4 is served whole.
//
// A shared Admission is held first by another session, and the connection
// allows 6: the elements the Admission refuses have taken a connection
// slot, which they must give back, or the last batch finds too few.
func TestConn_batchElementsCountAgainstTheLimit(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts func() conn.Options
	}{
		{"limit=MaxInFlight", func() conn.Options { return conn.Options{MaxInFlight: 4} }},
		{"limit=Limiter", func() conn.Options { return conn.Options{MaxInFlight: 6, Admission: pool.NewLimiter(4)} }},
		{"limit=AdaptiveLimiter", func() conn.Options {
			return conn.Options{MaxInFlight: 6, Admission: pool.NewAdaptiveLimiter(&pool.AdaptiveOptions{InitialLimit: 4, MaxLimit: 4})}
		}},
	} {
		for _, before := range []int{0, 2} {
			t.Run(tc.name+"/inFlightBefore="+strconv.Itoa(before), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					p0 := startPool(t, &pool.Options{Workers: 16})
					var cc concurrency
					gate := make(chan struct{})
					opts := tc.opts()
					// Every request to the pool: led by the reader, the
					// first one held would hold the reader until the
					// watchdog's timer fires, which a bubble's clock does
					// not while the peer's second write waits on the
					// pipe's lock.
					opts.Pool, opts.Overload = p0, pool.Reject
					r := limitRouter(&cc, gate)
					_, p := serve(t, r, &opts)
					first := p // where the requests before the batch go
					if opts.Admission != nil {
						_, first = serve(t, r, &opts)
					}
					for id := range before {
						first.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(100+id) + `,"method":"hold"}`)
					}
					synctest.Wait() // they hold their slots
					p.send(batchOf("hold", 1, 10))
					synctest.Wait() // every element dispatched; the accepted ones hold
					if n, _ := cc.running(); n != 4 {
						t.Errorf("%d handlers running, want the limit, 4", n)
					}
					close(gate)
					// On one session the answers come in the order the
					// handlers finish.
					answers := []any{p.recv()}
					for range before {
						answers = append(answers, first.recv())
					}
					for _, v := range answers {
						if m, ok := v.(map[string]any); ok && m["result"] != true {
							t.Errorf("a request before the batch: %v", m)
						} else if !ok {
							checkBatch(t, v, 1, 10, 4-before)
						}
					}
					synctest.Wait() // the handlers have released their slots
					p.send(batchOf("hold", 11, 4))
					checkBatch(t, p.recv(), 11, 4, 4)
					if a, ok := opts.Admission.(interface{ InUse() int }); ok {
						synctest.Wait()
						if n := a.InUse(); n != 0 {
							t.Errorf("%d slots of the Admission still held", n)
						}
					}
				})
			})
		}
	}
}

// Under Block the reader waits for a slot instead: a batch of 10 under a
// limit of 4 is answered whole and in order, never more than 4 elements
// run at once, and it takes exactly three rounds of the handler.
func TestConn_batchElementsWaitForTheLimitUnderBlock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p0 := startPool(t, &pool.Options{Workers: 16})
		var cc concurrency
		_, p := serve(t, limitRouter(&cc, nil), &conn.Options{MaxInFlight: 4, Overload: pool.Block, Pool: p0})
		start := time.Now()
		p.send(batchOf("nap", 1, 10))
		checkBatch(t, p.recv(), 1, 10, 10)
		if d := time.Since(start); d != 30*time.Millisecond {
			t.Errorf("the batch took %v, want 3 rounds of 10ms", d)
		}
		if _, most := cc.running(); most != 4 {
			t.Errorf("at most %d elements ran at once, want 4", most)
		}
	})
}
