package conn_test

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

// BenchmarkBlockingHandler keeps 64 echo requests in flight on one session
// whose handler runs on the pool (default size) and reports requests/s.
// With handler=sleep1ms each handler blocks for 1ms, so the pool's workers
// must run them side by side: the target is near 64 × 1000/s (a sleep of
// 1ms lasts a little longer). With handler=tiny the handler returns at
// once: the cost of the hand-off, which the first must not be bought with.
// ceiling=sleep1ms is 64 goroutines sleeping 1ms in a loop, with no
// session: what this machine's timers allow the first case.
func BenchmarkBlockingHandler(b *testing.B) {
	const depth = 64
	b.Run("ceiling=sleep1ms", func(b *testing.B) {
		woke, stop := make(chan struct{}), make(chan struct{})
		var sleepers sync.WaitGroup
		for range depth {
			sleepers.Go(func() {
				for {
					time.Sleep(time.Millisecond)
					select {
					case woke <- struct{}{}:
					case <-stop:
						return
					}
				}
			})
		}
		b.ReportAllocs()
		for b.Loop() {
			<-woke
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		close(stop)
		sleepers.Wait()
	})
	for _, h := range []struct {
		name  string
		sleep time.Duration
	}{{"handler=sleep1ms", time.Millisecond}, {"handler=tiny", 0}} {
		b.Run(h.name, func(b *testing.B) {
			r := router.New()
			r.Register("echo", router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
				if h.sleep > 0 {
					time.Sleep(h.sleep)
				}
				return codec.Raw(req.Params), nil
			}), nil)
			p, err := pool.New(nil)
			if err != nil {
				b.Fatal(err)
			}
			cli, srv := net.Pipe()
			c := conn.New(srv, &conn.Options{Router: r, Pool: p})

			// The writer sends a request for every token, as many at once
			// as it holds; the reader gives a token back per response.
			req := echoRequest(1)
			block := bytes.Repeat(req, depth)
			tokens := make(chan struct{}, depth)
			for range depth {
				tokens <- struct{}{}
			}
			var sent atomic.Int64
			stop, wrote := make(chan struct{}), make(chan struct{})
			go func() {
				defer close(wrote)
				for {
					select {
					case <-tokens:
					case <-stop:
						return
					}
					n := 1
				more:
					for n < depth {
						select {
						case <-tokens:
							n++
						default:
							break more
						}
					}
					sent.Add(int64(n))
					if _, err := cli.Write(block[:n*len(req)]); err != nil {
						return
					}
				}
			}()
			defer func() {
				cli.Close()
				<-wrote
				c.Close()
				p.Close(context.Background())
			}()

			br := bufio.NewReaderSize(cli, 64<<10)
			received := 0
			b.SetBytes(int64(len(req)))
			b.ReportAllocs()
			for b.Loop() {
				line, err := br.ReadSlice('\n')
				if err != nil || !isEcho(line) {
					b.Fatalf("response %d: %q %v", received, line, err)
				}
				received++
				tokens <- struct{}{}
			}
			b.ReportMetric(float64(received)/b.Elapsed().Seconds(), "req/s")

			// Collect the answers to what is still in flight, reading on
			// while the writer ends: it may be writing a last block, which
			// the session reads only once it could write the answers
			// before.
			close(stop)
			for ended := false; !ended || int64(received) < sent.Load(); {
				if int64(received) == sent.Load() {
					select {
					case <-wrote:
						ended = true
					case <-time.After(100 * time.Microsecond): // it may send more
					}
					continue
				}
				if line, err := br.ReadSlice('\n'); err != nil || !isEcho(line) {
					b.Fatalf("draining: %q %v", line, err)
				}
				received++
			}
		})
	}
}

// BenchmarkOverloadP99 offers two sessions on a pool of 20 workers
// (handler sleeping 20ms) half their capacity for 300ms, then twice their
// capacity for 600ms, in real time, with an AdaptiveLimiter (default
// options) or a fixed limit too large to refuse anything as the shared
// Admission. It reports the p99 latency of accepted requests under load
// and unloaded (ms), their ratio, and how many requests were accepted and
// rejected under load, per run (the mean over runs). A run takes about 1s
// with the adaptive limit, 1.5s with the fixed one (its queue drains for
// 600ms more).
func BenchmarkOverloadP99(b *testing.B) {
	const (
		workers   = 20
		service   = 20 * time.Millisecond
		idleTicks = 75  // of 4ms: 300ms
		loadTicks = 600 // of 1ms
	)
	for _, v := range []struct {
		name string
		adm  func() pool.Admission
	}{
		{"limit=adaptive", func() pool.Admission { return pool.NewAdaptiveLimiter(nil) }},
		{"limit=fixed", func() pool.Admission { return pool.NewLimiter(1 << 16) }},
	} {
		b.Run(v.name, func(b *testing.B) {
			var sum overloadP99
			var ratio float64
			runs := 0
			b.ReportAllocs()
			for b.Loop() {
				m := runOverload(b, v.adm(), workers, service, idleTicks, loadTicks)
				if m.accepted == 0 || m.unloaded == 0 {
					b.Fatalf("nothing accepted: %+v", m)
				}
				sum.loaded += m.loaded
				sum.unloaded += m.unloaded
				sum.accepted += m.accepted
				sum.rejected += m.rejected
				ratio += m.ratio()
				runs++
			}
			n := float64(runs)
			b.ReportMetric(ms(sum.loaded)/n, "p99-ms")
			b.ReportMetric(ms(sum.unloaded)/n, "unloaded-p99-ms")
			b.ReportMetric(ratio/n, "p99-ratio")
			b.ReportMetric(float64(sum.accepted)/n, "accepted")
			b.ReportMetric(float64(sum.rejected)/n, "rejected")
		})
	}
}
