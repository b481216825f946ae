package conn_test

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

// metricsLog is a conn.Metrics that records what it is told.
type metricsLog struct {
	mu       sync.Mutex
	answered map[string]int           // "method code" → requests
	refused  map[string]int           // likewise
	latency  map[string]time.Duration // the longest, by method
	inFlight atomic.Int64
	negative atomic.Bool // InFlight went below zero
}

func newMetricsLog() *metricsLog {
	return &metricsLog{answered: map[string]int{}, refused: map[string]int{}, latency: map[string]time.Duration{}}
}

func (l *metricsLog) Answered(method string, code codec.Code, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.answered[fmt.Sprint(method, " ", int(code))]++
	l.latency[method] = max(l.latency[method], d)
}

func (l *metricsLog) Refused(method string, code codec.Code) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refused[fmt.Sprint(method, " ", int(code))]++
}

func (l *metricsLog) InFlight(delta int) {
	if l.inFlight.Add(int64(delta)) < 0 {
		l.negative.Store(true)
	}
}

// want checks the answers and refusals reported so far, exactly.
func (l *metricsLog) want(t *testing.T, answered, refused map[string]int) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !maps.Equal(l.answered, answered) {
		t.Errorf("answered %v, want %v", l.answered, answered)
	}
	if !maps.Equal(l.refused, refused) {
		t.Errorf("refused %v, want %v", l.refused, refused)
	}
}

func (l *metricsLog) longest(method string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.latency[method]
}

// settle waits for every handler handed off to have returned: InFlight
// comes after the answer, and a handler answered on its behalf returns
// later still.
func (l *metricsLog) settle(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); l.inFlight.Load() != 0; {
		if time.Now().After(deadline) {
			t.Fatalf("in flight: %d, want 0", l.inFlight.Load())
		}
		time.Sleep(time.Millisecond)
	}
	if l.negative.Load() {
		t.Fatal("InFlight went below zero")
	}
}

func TestMetrics_reportsEveryAnswerOnceWithItsCode(t *testing.T) {
	ml := newMetricsLog()
	_, p := serve(t, testRouter(t), &conn.Options{Metrics: ml, Limits: &codec.Limits{MaxFrameBytes: 1024}})
	p.send(
		`{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`,       // inline
		`{"jsonrpc":"2.0","id":2,"method":"echo_async","params":[2]}`, // pooled
		`{"jsonrpc":"2.0","id":3,"method":"fail"}`,
		`{"jsonrpc":"2.0","id":4,"method":"forbidden"}`,
		`{"jsonrpc":"2.0","id":5,"method":"panic"}`,
		`{"jsonrpc":"2.0","id":6,"method":"sleep","params":["x"]}`,
		`{"jsonrpc":"2.0","id":7,"method":"nope"}`,
		`{"jsonrpc":"2.0","method":"echo","params":[0]}`, // notifications: not reported
		`{"jsonrpc":"2.0","method":"echo_async","params":[0]}`,
		`{"jsonrpc":"2.0","method":"nope"}`,
		`{"jsonrpc":"1.0","id":8,"method":"echo"}`,
		`{"jsonrpc":"2.0","id":9,`,
		`{"jsonrpc":"2.0","id":10,"method":"echo","params":["`+strings.Repeat("x", 2000)+`"]}`,
		`[{"jsonrpc":"2.0","id":11,"method":"echo","params":[11]},{"jsonrpc":"2.0","id":12,"method":"nope"}]`,
	)
	for range 11 { // ids 1 to 10, and the batch's array
		p.recv()
	}
	ml.want(t, map[string]int{
		"echo 0":           2,
		"echo_async 0":     1,
		"fail -32603":      1,
		"forbidden -32010": 1,
		"panic -32603":     1,
		"sleep -32602":     1,
	}, map[string]int{
		"(unknown) -32601": 2,
		"(invalid) -32600": 2, // jsonrpc 1.0, and the frame too large
		"(invalid) -32700": 1,
	})
	ml.settle(t)
}

func TestMetrics_pooledLatencyRunsFromHandOffToAnswer(t *testing.T) {
	ml := newMetricsLog()
	r, started := startedRouter(t)
	_, p := serve(t, r, &conn.Options{Metrics: ml})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"sleep_started","params":[60]}`)
	<-started
	if n := ml.inFlight.Load(); n != 1 {
		t.Errorf("in flight while the handler runs: %d, want 1", n)
	}
	if m := p.recvObj(); m["result"].(float64) != 60 {
		t.Fatal(m)
	}
	if d := ml.longest("sleep_started"); d < 60*time.Millisecond || d > 10*time.Second {
		t.Errorf("latency %v of a 60ms handler", d)
	}
	ml.settle(t)
	ml.want(t, map[string]int{"sleep_started 0": 1}, map[string]int{})
}

func TestMetrics_interceptorHitIsAnsweredWithoutInFlight(t *testing.T) {
	for _, tc := range []struct {
		name  string
		hit   bool
		hands int64
	}{{"hit", true, 0}, {"miss", false, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			ml := newMetricsLog()
			var hands countingPool
			r := interceptedRouter(t, cacheMiss{})
			if tc.hit {
				r = interceptedRouter(t, cacheHit{[]byte(`{"cached":true}`)})
			}
			_, p := serve(t, r, &conn.Options{Metrics: ml, Pool: &hands})
			p.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`)
			if m := p.recvObj(); m["result"] == nil {
				t.Fatal(m)
			}
			ml.settle(t)
			ml.want(t, map[string]int{"echo 0": 1}, map[string]int{})
			if n := hands.n.Load(); n != tc.hands {
				t.Errorf("hand-offs: %d, want %d", n, tc.hands)
			}
		})
	}
}

// A pooled request answered on its handler's behalf is reported once, with
// that answer, not again when the handler returns.
func TestMetrics_answersOnAHandlersBehalfAreReportedOnce(t *testing.T) {
	t.Run("timeout", func(t *testing.T) {
		// The handler outlives its timeout by far, ignoring its context:
		// it returns only once the test has the -32012.
		release := make(chan struct{})
		r := router.New()
		r.Register("stuck", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
			<-release
			return 1, nil
		}), nil)
		ml := newMetricsLog()
		_, p := serve(t, r, &conn.Options{Metrics: ml, HandlerTimeout: 30 * time.Millisecond})
		p.send(`{"jsonrpc":"2.0","id":1,"method":"stuck"}`)
		if m := p.recvObj(); errCode(t, m) != -32012 {
			t.Fatal(m)
		}
		if n := ml.inFlight.Load(); n != 1 {
			t.Errorf("in flight past the timeout: %d, want 1 (the handler still runs)", n)
		}
		close(release)
		ml.settle(t)
		ml.want(t, map[string]int{"stuck -32012": 1}, map[string]int{})
		if d := ml.longest("stuck"); d < 30*time.Millisecond {
			t.Errorf("latency %v under a 30ms timeout", d)
		}
	})
	t.Run("silent cancel", func(t *testing.T) {
		ml := newMetricsLog()
		started := make(chan string, 1)
		c, p := serve(t, blockingRouter(t, started), &conn.Options{Metrics: ml, Cancel: conn.CancelSilent})
		p.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
		<-started
		if !c.Cancel([]byte("1")) {
			t.Fatal("Cancel found nothing")
		}
		p.expectNothing(20 * time.Millisecond)
		ml.settle(t)
		ml.want(t, map[string]int{"wait -32005": 1}, map[string]int{})
	})
	t.Run("abandoned by Shutdown", func(t *testing.T) {
		ml := newMetricsLog()
		r, started := startedRouter(t)
		c, p := serve(t, r, &conn.Options{Metrics: ml})
		p.send(`{"jsonrpc":"2.0","id":1,"method":"sleep_started","params":[10000]}`)
		<-started
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		go c.Shutdown(ctx)
		if m := p.recvObj(); errCode(t, m) != -32004 {
			t.Fatal(m)
		}
		<-c.Done()
		ml.settle(t)
		ml.want(t, map[string]int{"sleep_started -32004": 1}, map[string]int{})
	})
}

func TestMetrics_refusalsBeforeAHandlerRan(t *testing.T) {
	// A second request while the first holds what opts bounds.
	overloaded := func(t *testing.T, opts conn.Options, filled func()) {
		ml := newMetricsLog()
		opts.Metrics = ml
		r, started := startedRouter(t)
		_, p := serve(t, r, &opts)
		p.send(`{"jsonrpc":"2.0","id":1,"method":"sleep_started","params":[100]}`)
		<-started
		filled()
		p.send(`{"jsonrpc":"2.0","id":2,"method":"sleep","params":[1]}`)
		for range 2 {
			p.recv()
		}
		ml.settle(t)
		ml.want(t, map[string]int{"sleep_started 0": 1}, map[string]int{"sleep -32000": 1})
	}
	t.Run("MaxInFlight", func(t *testing.T) {
		overloaded(t, conn.Options{MaxInFlight: 1, Overload: pool.Reject}, func() {})
	})
	t.Run("pool refuses", func(t *testing.T) {
		p0, err := pool.New(&pool.Options{Workers: 1, Queue: 1, Overload: pool.Reject})
		if err != nil {
			t.Fatal(err)
		}
		defer p0.Close(context.Background())
		// The first request holds the one worker; a task of the test's
		// fills the queue. Every request goes to the pool, even the
		// second, which the reader would otherwise run itself.
		overloaded(t, conn.Options{Pool: p0}, func() {
			if err := p0.Submit(taskFunc(func() {})); err != nil {
				t.Fatal(err)
			}
		})
	})
	t.Run("bodies", func(t *testing.T) {
		ml := newMetricsLog()
		s := conn.NewStream(nil, &conn.Options{Router: testRouter(t), Metrics: ml, RefuseBatches: true,
			Limits: &codec.Limits{MaxFrameBytes: 100}})
		serveBody := func(body string) {
			t.Helper()
			if err := s.ServeBody(context.Background(), []byte(body), func([]byte) {}); err != nil {
				t.Fatal(err)
			}
		}
		serveBody(`[{"jsonrpc":"2.0","id":1,"method":"echo"}]`)
		serveBody(`{"jsonrpc":"2.0","id":2,"method":"echo","params":["` + strings.Repeat("x", 100) + `"]}`)
		serveBody(`{"jsonrpc":"2.0","id":3,"method":"echo"}`)
		if err := s.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		serveBody(`{"jsonrpc":"2.0","id":4,"method":"echo"}`) // shutting down
		ml.want(t, map[string]int{"echo 0": 1}, map[string]int{"(invalid) -32600": 2, "echo -32000": 1})
	})
}

// taskFunc adapts a function to pool.Task.
type taskFunc func()

func (f taskFunc) Run() { f() }
