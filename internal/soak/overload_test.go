package soak

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// The overload server: a pool of overloadWorkers workers whose handler
// sleeps overloadService, so that its capacity is about
// overloadWorkers/overloadService whatever else the machine does, behind
// a shared admission limit of twice the workers.
const (
	overloadWorkers = 32
	overloadService = 40 * time.Millisecond
	overloadHint    = 25 * time.Millisecond // the pool's retry hint
	overloadConns   = 8                     // clients, a connection each
	overloadFor     = 3 * time.Second
)

// overloadServer serves "work" on loopback TCP with the given overload
// policy; stop shuts it and its pool down.
func overloadServer(t *testing.T, policy pool.Overload) (addr string, stop func()) {
	t.Helper()
	p, err := pool.New(&pool.Options{Workers: overloadWorkers, RetryAfter: overloadHint})
	if err != nil {
		t.Fatal(err)
	}
	r := router.New()
	r.Register("work", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		time.Sleep(overloadService)
		return true, nil
	}), nil)
	srv := transport.NewServer(&conn.Options{
		Router: r, Pool: p,
		Admission: pool.NewLimiter(2 * overloadWorkers), Overload: policy,
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	return ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-served; !errors.Is(err, transport.ErrServerClosed) {
			t.Errorf("Serve returned %v", err)
		}
		if err := p.Close(ctx); err != nil {
			t.Errorf("pool close: %v", err)
		}
	}
}

// outcome is one request's fate as its client saw it.
type outcome struct {
	latency time.Duration
	code    int   // 0 for a result
	retryMs int64 // data.retryAfterMs of a refusal; -1 when absent
}

// offer sends perSec requests a second for d to addr, spread over
// overloadConns connections and paced in 1 ms ticks, and returns every
// request's outcome once all are answered (or fails the test).
func offer(t *testing.T, addr string, perSec float64, d time.Duration) []outcome {
	t.Helper()
	var mu sync.Mutex
	var all []outcome
	var wg sync.WaitGroup
	for range overloadConns {
		wg.Go(func() {
			out, err := offerOne(addr, perSec/overloadConns, d)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Error(err)
			}
			all = append(all, out...)
		})
	}
	wg.Wait()
	return all
}

// offerOne paces requests at perSec on one connection for d and reads
// their answers, ids 0, 1, … in the order sent.
func offerOne(addr string, perSec float64, d time.Duration) ([]outcome, error) {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(d + 20*time.Second)) // Block's backlog drains in about d
	total := int(perSec * d.Seconds())
	sentAt := make([]time.Time, total)
	out := make([]outcome, total)
	written := make(chan error, 1)
	go func() {
		bw := bufio.NewWriter(nc)
		start := time.Now()
		tk := time.NewTicker(time.Millisecond)
		defer tk.Stop()
		var buf []byte
		for sent := 0; sent < total; <-tk.C {
			due := min(total, int(time.Since(start).Seconds()*perSec)+1)
			now := time.Now()
			for ; sent < due; sent++ {
				sentAt[sent] = now
				buf = strconv.AppendInt(append(buf[:0], `{"jsonrpc":"2.0","id":`...), int64(sent), 10)
				bw.Write(append(buf, `,"method":"work"}`+"\n"...))
			}
			if err := bw.Flush(); err != nil {
				written <- err
				return
			}
		}
		written <- nil
	}()
	br := bufio.NewReader(nc)
	seen := make([]bool, total)
	for range total {
		line, err := br.ReadSlice('\n')
		at := time.Now()
		if err != nil {
			return nil, fmt.Errorf("reading answers: %v", err)
		}
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code int `json:"code"`
				Data struct {
					RetryAfterMs *int64 `json:"retryAfterMs"`
				} `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &m); err != nil || m.ID < 0 || m.ID >= total || seen[m.ID] {
			return nil, fmt.Errorf("answer %q: unknown, repeated or no JSON (%v)", line, err)
		}
		seen[m.ID] = true
		o := outcome{latency: at.Sub(sentAt[m.ID]), retryMs: -1}
		if m.Error != nil {
			o.code = m.Error.Code
			if m.Error.Data.RetryAfterMs != nil {
				o.retryMs = *m.Error.Data.RetryAfterMs
			}
		} else if string(m.Result) != "true" {
			return nil, fmt.Errorf("answer %q: want true", line)
		}
		out[m.ID] = o
	}
	return out, <-written
}

// capacity measures the server's throughput under Block with twice as
// many requests in flight as it has workers, for d.
func capacity(t *testing.T, d time.Duration) float64 {
	addr, stop := overloadServer(t, pool.Block)
	defer stop()
	// Offered far beyond capacity, Block holds the excess in the sockets;
	// the count of answers within d is the capacity.
	perConn := 2 * overloadWorkers / overloadConns
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	end := time.Now().Add(d)
	for range overloadConns {
		wg.Go(func() {
			n, err := closedLoop(addr, perConn, end)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Error(err)
			}
			done += n
		})
	}
	wg.Wait()
	return float64(done) / d.Seconds()
}

// closedLoop keeps window requests in flight on one connection until end
// and returns how many were answered by then.
func closedLoop(addr string, window int, end time.Time) (int, error) {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return 0, err
	}
	defer nc.Close()
	nc.SetDeadline(end.Add(30 * time.Second))
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"work"}` + "\n")
	for range window {
		if _, err := nc.Write(req); err != nil {
			return 0, err
		}
	}
	br := bufio.NewReader(nc)
	n := 0
	for time.Now().Before(end) {
		if _, err := br.ReadSlice('\n'); err != nil {
			return n, err
		}
		n++
		if _, err := nc.Write(req); err != nil {
			return n, err
		}
	}
	return n, nil
}

// TestOverload_twiceCapacity_refusedFastAndCounted offers a server twice
// its measured capacity. Refusing (pool.Reject): every request is answered
// once, accepted + refused = sent, a refusal is -32000 with the pool's
// data.retryAfterMs and comes fast (p50 under a quarter of a service
// time, p90 under half), and
// the workers stay busy (accepted near capacity). Holding back
// (pool.Block): nothing is refused, every request is answered with its
// result. The heap is flat across both. Under -race the refusals' latency
// is reported, not bounded.
func TestOverload_twiceCapacity_refusedFastAndCounted(t *testing.T) {
	before := measure(t)
	c := capacity(t, time.Second)
	nominal := overloadWorkers / overloadService.Seconds()
	t.Logf("capacity %.0f/s measured (%.0f/s nominal)", c, nominal)
	if c < nominal/2 || c > nominal*1.1 {
		t.Fatalf("capacity %.0f/s measured, nominal %.0f/s: the machine is too busy to measure", c, nominal)
	}

	t.Run("reject", func(t *testing.T) {
		addr, stop := overloadServer(t, pool.Reject)
		out := offer(t, addr, 2*c, overloadFor)
		stop()
		var accepted, refusals []time.Duration
		bad := 0
		for _, o := range out {
			switch {
			case o.code == 0:
				accepted = append(accepted, o.latency)
			case o.code == -32000 && o.retryMs == overloadHint.Milliseconds():
				refusals = append(refusals, o.latency)
			default:
				if bad++; bad <= 5 {
					t.Errorf("answer %+v: want a result or -32000 with retryAfterMs %d", o, overloadHint.Milliseconds())
				}
			}
		}
		sent := int(2*c*overloadFor.Seconds()/overloadConns) * overloadConns
		p99r, p99a := p99(refusals), p99(accepted)
		t.Logf("sent %d at %.0f/s: accepted %d (p99 %v), refused %d (p99 %v)",
			sent, 2*c, len(accepted), p99a, len(refusals), p99r)
		if len(accepted)+len(refusals) != sent || len(out) != sent {
			t.Errorf("accepted %d + refused %d of %d answers != sent %d", len(accepted), len(refusals), len(out), sent)
		}
		// Bounded: the median and the 90th percentile. The tail is only
		// reported: the shared machine stalls this process for tens of
		// milliseconds now and then (p99 65 ms seen), the refusals of the
		// moment with it.
		p50r, p90r := pct(refusals, 50), pct(refusals, 90)
		t.Logf("refusal latency p50 %v, p90 %v, p99 %v", p50r, p90r, p99r)
		if (p50r > overloadService/4 || p90r > overloadService/2) && !raceBuild { // the race detector's pace is no measure
			t.Errorf("refusal latency p50 %v, p90 %v: want under a quarter and a half of a service time (%v)", p50r, p90r, overloadService)
		}
		// A busy machine bunches the clients' ticks, and a burst beyond
		// the admission limit is refused while the workers then idle: the
		// bound leaves room for that, more under the race detector.
		busy := 0.7
		if raceBuild {
			busy = 0.5
		}
		if want := busy * c * overloadFor.Seconds(); float64(len(accepted)) < want {
			t.Errorf("accepted %d, want at least %.0f (%.0f%% of capacity): the workers idled", len(accepted), want, 100*busy)
		}
	})

	t.Run("block", func(t *testing.T) {
		addr, stop := overloadServer(t, pool.Block)
		out := offer(t, addr, 2*c, overloadFor)
		stop()
		var accepted []time.Duration
		for _, o := range out {
			if o.code != 0 {
				t.Fatalf("answer %+v under Block: want a result", o)
			}
			accepted = append(accepted, o.latency)
		}
		sent := int(2*c*overloadFor.Seconds()/overloadConns) * overloadConns
		t.Logf("sent %d at %.0f/s: all %d answered with a result (p99 %v)", sent, 2*c, len(accepted), p99(accepted))
		if len(accepted) != sent {
			t.Errorf("%d answered, %d sent", len(accepted), sent)
		}
	})

	after := settle(t, before)
	t.Logf("goroutines %d → %d, descriptors %d → %d, HeapInuse %.1f → %.1f MiB",
		before.goroutines, after.goroutines, before.fds, after.fds, mib(before.heap), mib(after.heap))
	if after.heap > before.heap+8<<20 {
		t.Errorf("HeapInuse grew from %.1f to %.1f MiB", mib(before.heap), mib(after.heap))
	}
	if after.goroutines > before.goroutines || after.fds > before.fds {
		t.Errorf("goroutines %d → %d, descriptors %d → %d: not back", before.goroutines, after.goroutines, before.fds, after.fds)
	}
}

// p99 is the 99th percentile of ds (0 for none).
func p99(ds []time.Duration) time.Duration { return pct(ds, 99) }

// pct is the p-th percentile of ds (0 for none).
func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)*p/100]
}
