package conn_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

// An open-loop load for the overload checks and benchmarks: requests go
// out on a schedule whatever comes back, as from many independent users,
// and each latency is measured from the request's scheduled time, so a
// server that stops reading is charged for the wait (no coordinated
// omission). The same code runs in real time and, inside a synctest
// bubble, in virtual time, where every latency is exact.

// load is what one session is offered: perTick requests of method (no
// params) at each of ticks ticks, tick apart.
type load struct {
	method  string
	perTick int
	tick    time.Duration
	ticks   int
	// retryAfter is the hint every -32000 answer must carry.
	retryAfter time.Duration
}

func (l load) total() int { return l.perTick * l.ticks }

// loadResult holds the latencies of the requests answered with a result
// (accepted) and of those refused -32000 (rejected).
type loadResult struct {
	accepted, rejected []time.Duration
}

func (r *loadResult) add(o loadResult) {
	r.accepted = append(r.accepted, o.accepted...)
	r.rejected = append(r.rejected, o.rejected...)
}

// reply is the part of a response the load client reads.
type reply struct {
	ID     *int            `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int             `json:"code"`
		Data json.RawMessage `json:"data"`
	} `json:"error"`
}

// appendCall appends the request line with this id.
func appendCall(dst []byte, id int, method string) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = strconv.AppendInt(dst, int64(id), 10)
	dst = append(dst, `,"method":"`...)
	dst = append(dst, method...)
	return append(dst, "\"}\n"...)
}

// offer sends l on nc, the client end of a session, and reads the answers
// until every request has one (ids 0 … l.total()-1, one tick's worth in
// one write). A writer that falls behind its schedule catches up at once.
// Every answer must be a result, or -32000 with data.retryAfterMs equal to
// l.retryAfter; every id must be answered exactly once. Problems are
// reported to tb, and cut the run short.
func offer(tb testing.TB, nc net.Conn, l load) loadResult {
	start := time.Now()
	total := l.total()
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		var buf []byte
		for k := range l.ticks {
			if d := time.Until(start.Add(time.Duration(k) * l.tick)); d > 0 {
				time.Sleep(d)
			}
			buf = buf[:0]
			for id := k * l.perTick; id < (k+1)*l.perTick; id++ {
				buf = appendCall(buf, id, l.method)
			}
			if _, err := nc.Write(buf); err != nil {
				tb.Errorf("load: write: %v", err)
				return
			}
		}
	}()
	defer func() { <-wrote }()

	var r loadResult
	seen := make([]bool, total)
	br := bufio.NewReader(nc)
	nc.SetReadDeadline(start.Add(time.Duration(l.ticks)*l.tick + time.Minute))
	for range total {
		line, err := br.ReadBytes('\n')
		if err != nil {
			tb.Errorf("load: read after %d answers: %v", len(r.accepted)+len(r.rejected), err)
			nc.Close() // unblocks the writer
			return r
		}
		now := time.Now()
		var rep reply
		if err := json.Unmarshal(line, &rep); err != nil || rep.ID == nil || *rep.ID < 0 || *rep.ID >= total || seen[*rep.ID] {
			tb.Errorf("load: unexpected answer %q (%v)", line, err)
			nc.Close()
			return r
		}
		id := *rep.ID
		seen[id] = true
		lat := now.Sub(start.Add(time.Duration(id/l.perTick) * l.tick))
		switch {
		case rep.Error == nil && rep.Result != nil:
			r.accepted = append(r.accepted, lat)
		case rep.Error != nil && rep.Error.Code == int(codec.CodeOverloaded):
			var data struct{ RetryAfterMs *int64 }
			if json.Unmarshal(rep.Error.Data, &data) != nil || data.RetryAfterMs == nil || *data.RetryAfterMs != l.retryAfter.Milliseconds() {
				tb.Errorf("load: -32000 without data.retryAfterMs = %d: %s", l.retryAfter.Milliseconds(), line)
			}
			r.rejected = append(r.rejected, lat)
		default:
			tb.Errorf("load: answer neither a result nor -32000: %s", line)
		}
	}
	return r
}

// offerAll offers l on every client at once and merges what came back.
func offerAll(tb testing.TB, clients []net.Conn, l load) loadResult {
	results := make([]loadResult, len(clients))
	var wg sync.WaitGroup
	for i, nc := range clients {
		wg.Go(func() { results[i] = offer(tb, nc, l) })
	}
	wg.Wait()
	var r loadResult
	for _, o := range results {
		r.add(o)
	}
	return r
}

// sessions starts n server sessions with opts, each on a net.Pipe, and
// returns the client ends; stop closes every session and waits for its
// end.
func sessions(n int, opts conn.Options) (clients []net.Conn, stop func()) {
	var servers []*conn.Conn
	for range n {
		a, b := net.Pipe()
		servers = append(servers, conn.New(a, &opts))
		clients = append(clients, b)
	}
	return clients, func() {
		for i, c := range servers {
			clients[i].Close()
			c.Close()
		}
	}
}

// startPool starts a pool with opts, closed when the test ends (inside
// its synctest bubble, if it has one, as the bubble requires).
func startPool(t *testing.T, opts *pool.Options) *pool.Pool {
	t.Helper()
	p, err := pool.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(context.Background()); err != nil {
			t.Errorf("pool Close: %v", err)
		}
	})
	return p
}

// workRouter serves "work", a pooled handler that sleeps for d (without
// watching its context: a blocking call) and answers true.
func workRouter(d time.Duration) *router.Router {
	r := router.New()
	r.Register("work", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		time.Sleep(d)
		return codec.Raw("true"), nil
	}), nil)
	return r
}

// p99 returns the 99th percentile of d by the nearest-rank method (the
// smallest sample at or above 99% of them), or 0 for no samples.
func p99(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(d))
	return s[(99*len(s)+99)/100-1]
}

// ms expresses d in milliseconds, for b.ReportMetric and logs.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
