package main

import (
	"bufio"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
)

// rawServer serves newline-framed JSON-RPC on loopback TCP, one
// connection at a time is enough for these tests: for each request it
// calls answer with the request's id (a number) to write what it likes.
// It returns the target URL.
func rawServer(t *testing.T, answer func(id uint64, w *bufio.Writer)) string {
	t.Helper()
	return countedServer(t, answer, nil)
}

// countedServer is rawServer, counting the connections it accepts in
// accepted (if not nil).
func countedServer(t *testing.T, answer func(id uint64, w *bufio.Writer), accepted *atomic.Int64) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if accepted != nil {
				accepted.Add(1)
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() {
				defer c.Close()
				scan := codec.NewScanner(nil)
				fr := codec.NewFramer(c, codec.Newline, nil)
				w := bufio.NewWriter(c)
				for {
					frame, err := fr.Next()
					if err != nil {
						return
					}
					msgs, _, err := scan.Scan(frame)
					if err != nil || len(msgs) != 1 {
						t.Errorf("server: %q: %v", frame, err)
						return
					}
					id, err := strconv.ParseUint(string(msgs[0].ID), 10, 64)
					if err != nil {
						t.Errorf("server: id %q", msgs[0].ID)
						return
					}
					answer(id, w)
					if !fr.Buffered() && w.Flush() != nil {
						return
					}
				}
			})
		}
	})
	return "tcp://" + ln.Addr().String()
}

// result writes a result answer to id.
func result(w *bufio.Writer, id uint64) {
	w.WriteString(`{"jsonrpc":"2.0","id":`)
	w.WriteString(strconv.FormatUint(id, 10))
	w.WriteString(`,"result":"ok"}` + "\n")
}

// TestLoad_countsLostDuplicateAndUnknownIDs: a server that drops some
// requests, answers others twice and invents ids: each is counted.
func TestLoad_countsLostDuplicateAndUnknownIDs(t *testing.T) {
	const n = 300
	var lost, dups, unknown int64
	for id := uint64(1); id <= n; id++ {
		switch {
		case id%10 == 0:
			lost++
		default:
			if id%7 == 0 {
				dups++
			}
			if id%13 == 0 {
				unknown++
			}
		}
	}
	target := rawServer(t, func(id uint64, w *bufio.Writer) {
		if id%10 == 0 {
			return // dropped
		}
		result(w, id)
		if id%7 == 0 {
			result(w, id)
		}
		if id%13 == 0 {
			result(w, id+1_000_000)
		}
	})
	r, code, _ := load(t, "-n", strconv.Itoa(n), "-depth", "64", "-timeout", "300ms", "-max-errors", "0", "-method", "x", target)
	if code != 1 {
		t.Errorf("exit %d with -max-errors 0 crossed; want 1", code)
	}
	if r.Requests != n || r.Lost != lost || r.Duplicates != dups || r.Unknown != unknown || r.OK != n-lost {
		t.Errorf("requests %d ok %d lost %d duplicates %d unknown %d; want %d, %d, %d, %d, %d",
			r.Requests, r.OK, r.Lost, r.Duplicates, r.Unknown, n, n-lost, lost, dups, unknown)
	}
	if want := lost + dups + unknown; r.Errors != want {
		t.Errorf("errors %d; want lost + duplicates + unknown = %d", r.Errors, want)
	}
	if len(r.Failed) != 1 {
		t.Errorf("failed thresholds %q; want -max-errors's", r.Failed)
	}
}

// TestLoad_openLoopShowsAStallAClosedLoopHides: a server stalls once for
// a second. The open loop measures each call from when it was meant to
// be sent, so the calls the stall held up show in p99; the closed loop
// sent nothing while it waited, so its p99 does not see it (only max).
func TestLoad_openLoopShowsAStallAClosedLoopHides(t *testing.T) {
	stalled := func() string {
		var once sync.Once
		var seen int
		return rawServer(t, func(id uint64, w *bufio.Writer) {
			if seen++; seen == 300 {
				once.Do(func() { w.Flush(); time.Sleep(time.Second) })
			}
			result(w, id)
		})
	}
	open, _, _ := load(t, "-rate", "1000", "-d", "3s", "-method", "x", stalled())
	closed, _, _ := load(t, "-d", "3s", "-method", "x", stalled())
	t.Logf("open loop: p50 %s p99 %s max %s (%d calls); closed loop: p50 %s p99 %s max %s (%d calls)",
		latencyText(open.LatencyUS.P50), latencyText(open.LatencyUS.P99), latencyText(open.LatencyUS.Max), open.Responses,
		latencyText(closed.LatencyUS.P50), latencyText(closed.LatencyUS.P99), latencyText(closed.LatencyUS.Max), closed.Responses)
	for _, r := range []*Report{open, closed} {
		if r.Errors != 0 || r.LatencyUS.Max < 900e3 {
			t.Errorf("%s loop: errors %d, max %s: want none, and the stall (1s) as max", r.Mode, r.Errors, latencyText(r.LatencyUS.Max))
		}
	}
	if open.LatencyUS.P99 < 500e3 {
		t.Errorf("open loop p99 %s: want the stall to show (≥ 500ms)", latencyText(open.LatencyUS.P99))
	}
	if closed.LatencyUS.P99 > 100e3 {
		t.Errorf("closed loop p99 %s: the stall was expected to hide in it (one slow call of many)", latencyText(closed.LatencyUS.P99))
	}
}
