package conn_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/clock"
	"github.com/mcpwire/mcpwire/router"
)

// resolvingLog is a metricsLog that resolves methods (conn.MethodResolver):
// it counts the reports a session still makes by name.
type resolvingLog struct {
	*metricsLog
	tallies  bool         // its MethodMetrics have tallies
	resolved atomic.Int64 // calls of Method
	byName   atomic.Int64 // reports by name of other than UnknownMethod and InvalidMessage
}

func (l *resolvingLog) Method(name string) conn.MethodMetrics {
	l.resolved.Add(1)
	return methodLog{l.metricsLog, name, l.tallies}
}

func (l *resolvingLog) Answered(method string, code codec.Code, d time.Duration) {
	l.byName.Add(1)
	l.metricsLog.Answered(method, code, d)
}

func (l *resolvingLog) Refused(method string, code codec.Code) {
	if method != conn.UnknownMethod && method != conn.InvalidMessage {
		l.byName.Add(1)
	}
	l.metricsLog.Refused(method, code)
}

// methodLog is the conn.MethodMetrics of one method of a metricsLog.
type methodLog struct {
	l       *metricsLog
	name    string
	tallies bool
}

func (m methodLog) Answered(code codec.Code, d time.Duration) { m.l.Answered(m.name, code, d) }
func (m methodLog) Refused(code codec.Code)                   { m.l.Refused(m.name, code) }

func (m methodLog) Tally() conn.MethodTally {
	if !m.tallies {
		return nil
	}
	return &tallyLog{m: m}
}

// tallyLog is a conn.MethodTally of a methodLog.
type tallyLog struct {
	m        methodLog
	gathered []func()
}

func (t *tallyLog) Answered(code codec.Code, d time.Duration) {
	t.gathered = append(t.gathered, func() { t.m.Answered(code, d) })
}

func (t *tallyLog) Flush() {
	for _, f := range t.gathered {
		f()
	}
	t.gathered = t.gathered[:0]
}

// A Metrics that resolves methods is told the same as one that does not,
// every registered method's requests through what it resolved, and it is
// asked to resolve a method once per session, not once per request.
func TestMetrics_resolvedMethodsAreReportedWithoutTheirNames(t *testing.T) {
	for _, tallies := range []bool{false, true} {
		t.Run(map[bool]string{false: "direct", true: "tallies"}[tallies], func(t *testing.T) {
			rl := &resolvingLog{metricsLog: newMetricsLog(), tallies: tallies}
			r := testRouter(t)
			_, p := serve(t, r, &conn.Options{Metrics: rl})
			for range 3 {
				p.send(
					`{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`, // inline
					`{"jsonrpc":"2.0","id":2,"method":"echo_async","params":[2]}`,
					`{"jsonrpc":"2.0","id":3,"method":"fail"}`,
					`{"jsonrpc":"2.0","id":4,"method":"nope"}`,
					`{"jsonrpc":"2.0","id":5,`,
					`[{"jsonrpc":"2.0","id":6,"method":"echo","params":[6]}]`,
				)
				for range 6 {
					p.recv()
				}
			}
			rl.settle(t)
			rl.want(t, map[string]int{"echo 0": 6, "echo_async 0": 3, "fail -32603": 3},
				map[string]int{"(unknown) -32601": 3, "(invalid) -32700": 3})
			if n := rl.byName.Load(); n != 0 {
				t.Errorf("%d reports of registered methods by name, want 0", n)
			}
			if n := rl.resolved.Load(); n != 3 {
				t.Errorf("Method called %d times for 3 methods, want 3", n)
			}
		})
	}
}

// The answers the reader tallies are reported before the peer can read
// them: with no wait, however many come in one write.
func TestMetrics_talliedAnswersAreCountedWhenRead(t *testing.T) {
	rl := &resolvingLog{metricsLog: newMetricsLog(), tallies: true}
	_, p := serve(t, testRouter(t), &conn.Options{Metrics: rl})
	for i := 1; i <= 3; i++ {
		line := `{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`
		p.send(strings.Repeat(line+"\n", i-1) + line)
		for range i {
			p.recv()
		}
		rl.want(t, map[string]int{"echo 0": i * (i + 1) / 2}, map[string]int{})
	}
}

// More methods than a reader keeps at hand: the tally of one let go is
// reported, and nothing is counted twice.
func TestMetrics_talliesOfManyMethods(t *testing.T) {
	rl := &resolvingLog{metricsLog: newMetricsLog(), tallies: true}
	r := router.New()
	want := map[string]int{}
	var lines []string
	for i := range 6 {
		name := fmt.Sprint("m", i)
		if err := r.Register(name, router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
			return i, nil
		}), &router.MethodOptions{Inline: true}); err != nil {
			t.Fatal(err)
		}
		want[name+" 0"] = 2
		lines = append(lines, `{"jsonrpc":"2.0","id":1,"method":"`+name+`"}`)
	}
	_, p := serve(t, r, &conn.Options{Metrics: rl})
	p.send(strings.Join(append(lines, lines...), "\n"))
	for range 12 {
		p.recv()
	}
	rl.want(t, want, map[string]int{})
}

// Refusals of registered methods go through what was resolved too, on a
// session served through ServeBody as on a stream.
func TestMetrics_resolvedMethodsAreRefusedWithoutTheirNames(t *testing.T) {
	rl := &resolvingLog{metricsLog: newMetricsLog()}
	s := conn.NewStream(nil, &conn.Options{Router: testRouter(t), Metrics: rl})
	serveBody := func(body string) {
		t.Helper()
		if err := s.ServeBody(context.Background(), []byte(body), func([]byte) {}); err != nil {
			t.Fatal(err)
		}
	}
	serveBody(`{"jsonrpc":"2.0","id":1,"method":"echo"}`)
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	serveBody(`{"jsonrpc":"2.0","id":2,"method":"echo"}`)
	rl.want(t, map[string]int{"echo 0": 1}, map[string]int{"echo -32000": 1})
	if n := rl.byName.Load(); n != 0 {
		t.Errorf("%d reports of registered methods by name, want 0", n)
	}
}

// An inline request that follows another without the reader waiting
// starts where the other's answer ended; after a wait for input, for a
// worker's slot, or after an inline notification it starts afresh: its
// latency holds its own handler's time and nothing else. In virtual time
// only the handlers' sleeps take any.
func TestMetrics_inlineLatencyHoldsNoWait(t *testing.T) {
	defer clock.Monotonic()() // fake time: the counter does not follow it
	synctest.Test(t, func(t *testing.T) {
		ml := newMetricsLog()
		r := router.New()
		sleeper := func(d time.Duration) router.Handler {
			return router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
				time.Sleep(d)
				return 1, nil
			})
		}
		inline := &router.MethodOptions{Inline: true}
		for _, reg := range []struct {
			name string
			h    router.Handler
			opts *router.MethodOptions
		}{
			{"ten", sleeper(10 * time.Millisecond), inline},
			{"zero", sleeper(0), inline},
			{"quiet", sleeper(time.Second), inline}, // a notification
			{"pooled", sleeper(time.Second), nil},
		} {
			if err := r.Register(reg.name, reg.h, reg.opts); err != nil {
				t.Fatal(err)
			}
		}
		_, p := serve(t, r, &conn.Options{Metrics: ml, MaxInFlight: 1})

		// Back to back in one write: 10ms each, not 10 then 20.
		p.send(`{"jsonrpc":"2.0","id":1,"method":"ten"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ten"}`)
		p.recv()
		p.recv()
		wantLongest(t, ml, "ten", 10*time.Millisecond)

		// After a second of waiting for input.
		time.Sleep(time.Second)
		p.send(`{"jsonrpc":"2.0","id":3,"method":"zero"}`)
		p.recv()
		wantLongest(t, ml, "zero", 0)

		// After a notification's second, in one write.
		p.send(`{"jsonrpc":"2.0","id":4,"method":"zero"}` + "\n" + `{"jsonrpc":"2.0","method":"quiet"}` +
			"\n" + `{"jsonrpc":"2.0","id":5,"method":"zero"}`)
		p.recv()
		p.recv()
		wantLongest(t, ml, "zero", 0)

		// After a second of waiting for the one slot MaxInFlight allows,
		// held by the first pooled request, to hand off the second: in a
		// batch, whose answers the reader does not hold.
		p.send(`[{"jsonrpc":"2.0","id":6,"method":"zero"},{"jsonrpc":"2.0","id":7,"method":"pooled"},` +
			`{"jsonrpc":"2.0","id":8,"method":"pooled"},{"jsonrpc":"2.0","id":9,"method":"zero"}]`)
		p.recv()
		wantLongest(t, ml, "zero", 0)
		ml.settle(t)
		ml.want(t, map[string]int{"ten 0": 2, "zero 0": 5, "pooled 0": 2}, map[string]int{})
	})
}

// wantLongest checks the longest latency reported for method.
func wantLongest(t *testing.T, ml *metricsLog, method string, want time.Duration) {
	t.Helper()
	if d := ml.longest(method); d != want {
		t.Errorf("%s: longest latency %v, want %v", method, d, want)
	}
}

// A batch's inline answers are tallied by the reader and reported before
// the batch can be sent, even when a worker finishing a pooled element
// sends it, the reader long since waiting for input.
func TestMetrics_talliedBatchAnswersAreCountedWhenRead(t *testing.T) {
	defer clock.Monotonic()() // fake time: the counter does not follow it
	synctest.Test(t, func(t *testing.T) {
		rl := &resolvingLog{metricsLog: newMetricsLog(), tallies: true}
		r := router.New()
		for name, opts := range map[string]*router.MethodOptions{"inline": {Inline: true}, "slow": nil} {
			if err := r.Register(name, router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
				if opts == nil {
					time.Sleep(time.Millisecond) // the reader waits for input meanwhile
				}
				return 1, nil
			}), opts); err != nil {
				t.Fatal(err)
			}
		}
		_, p := serve(t, r, &conn.Options{Metrics: rl})
		p.send(`[{"jsonrpc":"2.0","id":1,"method":"inline"},{"jsonrpc":"2.0","id":2,"method":"slow"},{"jsonrpc":"2.0","id":3,"method":"inline"}]`)
		if arr, ok := p.recv().([]any); !ok || len(arr) != 3 {
			t.Fatalf("got %v", arr)
		}
		rl.want(t, map[string]int{"inline 0": 2, "slow 0": 1}, map[string]int{})
	})
}
