package bench

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// callers is how many goroutines share one session in the pipelined
// benchmarks.
const callers = 64

// modes are the two ways of calling: callers goroutines at once sharing
// one session (b.N calls in all), or one call outstanding at a time.
var modes = []struct {
	name string
	run  func(b *testing.B, call caller)
}{
	{"pipelined", pipelined},
	{"roundtrip", roundTrip},
}

// BenchmarkToolsCall calls the echo tool of each implementation over each
// transport, in each mode. One op is one call: ns/op, B/op and allocs/op
// are per call, client and server together; calls/s is the throughput.
// Every answer is checked against the message sent.
func BenchmarkToolsCall(b *testing.B) { benchTables(b, transports) }

// table is one transport's implementations.
type table = struct {
	name  string
	impls []impl
}

// benchTables runs every implementation of every table in every mode, as
// transport=T/mode=M/impl=I.
func benchTables(b *testing.B, tables []table) {
	for _, tr := range tables {
		for _, m := range modes {
			for _, im := range tr.impls {
				b.Run("transport="+tr.name+"/mode="+m.name+"/impl="+im.name, func(b *testing.B) {
					call, stop := im.start(b)
					defer stop()
					m.run(b, call)
				})
			}
		}
	}
}

// pipelined makes b.N calls from callers goroutines, each with a message
// of its own, so an answer routed to the wrong caller is caught.
func pipelined(b *testing.B, call caller) {
	ctx := context.Background()
	var next, failed atomic.Int64
	var first atomic.Value
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	for g := range callers {
		msg := "hello, world #" + strconv.Itoa(g)
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				got, err := call(ctx, msg)
				if err == nil && got != msg {
					err = mismatch(got, msg)
				}
				if err != nil {
					failed.Add(1)
					first.CompareAndSwap(nil, err)
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d of %d calls failed; first: %v", n, b.N, first.Load())
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// roundTrip makes one call at a time.
func roundTrip(b *testing.B, call caller) {
	ctx := context.Background()
	const msg = "hello, world"
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		got, err := call(ctx, msg)
		if err == nil && got != msg {
			err = mismatch(got, msg)
		}
		if err != nil {
			b.Fatalf("call %d: %v", n, err)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "calls/s")
}

type mismatchError struct{ got, want string }

func (e *mismatchError) Error() string {
	return "echoed " + strconv.Quote(e.got) + ", want " + strconv.Quote(e.want)
}

func mismatch(got, want string) error { return &mismatchError{got, want} }
