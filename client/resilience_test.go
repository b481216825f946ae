package client_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
)

// faulty is a TCP server on loopback that misbehaves on request: the
// method names the fault, the params (an array of one string) the value
// to answer. Each request is served on a goroutine of its own, so
// answers may overtake one another; writes are whole lines under a lock.
//
//	ok        answers the param
//	drop      never answers
//	delay     answers after the number of ms in params[1]
//	dup       answers twice, the second time "dup"
//	unknown   answers an id never sent first, then the request
//	garbage   writes a line of bytes that are no JSON, then the answer
//	huge      answers with a result of hugeBytes, written in pieces
//	malformed answers with both a result and an error
//	blackhole never answers, and stops reading the connection
type faulty struct {
	ln   net.Listener
	wg   sync.WaitGroup
	mu   sync.Mutex
	nc   []net.Conn
	dead bool
	read map[string]int // method → requests read
}

const hugeBytes = 64 << 20

func newFaulty(t *testing.T, addr string) *faulty {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	f := &faulty{ln: ln, read: map[string]int{}}
	f.wg.Go(f.accept)
	t.Cleanup(f.kill)
	return f
}

func (f *faulty) addr() string { return "tcp://" + f.ln.Addr().String() }

// count returns how many requests for method were read.
func (f *faulty) count(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.read[method]
}

func (f *faulty) accept() {
	for {
		nc, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		if f.dead {
			f.mu.Unlock()
			nc.Close()
			return
		}
		f.nc = append(f.nc, nc)
		f.mu.Unlock()
		f.wg.Go(func() { f.serve(nc) })
	}
}

// kill closes the listener and every connection, as a killed process's
// would be, and waits for the server's goroutines.
func (f *faulty) kill() {
	f.mu.Lock()
	f.dead = true
	f.ln.Close()
	for _, nc := range f.nc {
		nc.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

func (f *faulty) serve(nc net.Conn) {
	var wmu sync.Mutex
	write := func(lines ...string) {
		wmu.Lock()
		defer wmu.Unlock()
		for _, l := range lines {
			if _, err := nc.Write([]byte(l + "\n")); err != nil {
				return
			}
		}
	}
	sc := bufio.NewScanner(nc)
	for sc.Scan() {
		var r wireRequest
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.ID == nil {
			continue
		}
		f.mu.Lock()
		f.read[r.Method]++
		f.mu.Unlock()
		var p []json.RawMessage
		json.Unmarshal(r.Params, &p)
		val := `null`
		if len(p) > 0 {
			val = string(p[0])
		}
		switch r.Method {
		case "ok":
			write(result(r, val))
		case "drop":
		case "delay":
			var ms int
			json.Unmarshal(p[1], &ms)
			f.wg.Go(func() {
				time.Sleep(time.Duration(ms) * time.Millisecond)
				write(result(r, val))
			})
		case "dup":
			write(result(r, val), result(r, `"dup"`))
		case "unknown":
			write(`{"jsonrpc":"2.0","id":987654321,"result":"stolen"}`, `{"jsonrpc":"2.0","id":"`+string(r.ID)+`","result":"stolen"}`, result(r, val))
		case "garbage":
			write("\x00\xff\xfe}{\"jsonrpc\u00e9 not json \x7f", result(r, val))
		case "huge":
			wmu.Lock()
			head := `{"jsonrpc":"2.0","id":` + string(r.ID) + `,"result":"`
			piece := []byte(strings.Repeat("x", 64<<10))
			nc.Write([]byte(head))
			for range hugeBytes / len(piece) {
				if _, err := nc.Write(piece); err != nil {
					break
				}
			}
			nc.Write([]byte("\"}\n"))
			wmu.Unlock()
		case "malformed":
			write(`{"jsonrpc":"2.0","id":` + string(r.ID) + `,"result":1,"error":{"code":-32603,"message":"both"}}`)
		case "blackhole":
			return // no more reads, no answer; the socket stays open until kill
		}
	}
}

// resilient dials f with a frame limit of 1 MiB and checks, when the test
// ends, that closing the client left none of its goroutines behind.
func resilient(t *testing.T, f *faulty, opts *client.Options) *client.Client {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	if opts == nil {
		opts = &client.Options{}
	}
	opts.Session = &conn.Options{Limits: &codec.Limits{MaxFrameBytes: 1 << 20}}
	c, err := client.Dial(context.Background(), f.addr(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The client alone must let go, the server still up (a black
		// hole never closes): only the server's goroutines may remain.
		c.Close()
		goleak.VerifyNone(t, ignore,
			goleak.IgnoreAnyFunction("github.com/mcpwire/mcpwire/client_test.(*faulty).accept"),
			goleak.IgnoreAnyFunction("github.com/mcpwire/mcpwire/client_test.(*faulty).serve"))
		f.kill()
	})
	return c
}

// call calls method with params [value, extra…] and a deadline d.
func call(c *client.Client, method string, d time.Duration, value string, extra ...any) (string, time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	var got string
	err := c.Call(ctx, method, append([]any{value}, extra...), &got)
	return got, time.Since(start), err
}

// deadlineError says whether err is a call's own deadline.
func deadlineError(err error) bool {
	var ce *conn.CanceledCallError
	return errors.Is(err, context.DeadlineExceeded) && errors.As(err, &ce)
}

// mustAnswer fails the test unless method answers value on c.
func mustAnswer(t *testing.T, c *client.Client, method, value string) {
	t.Helper()
	if got, _, err := call(c, method, 10*time.Second, value); err != nil || got != value {
		t.Fatalf("%s(%q) = %q, %v", method, value, got, err)
	}
}

func TestClient_resilience_droppedAnswerFailsAtItsDeadlineAndTheSessionGoesOn(t *testing.T) {
	c := resilient(t, newFaulty(t, "127.0.0.1:0"), nil)
	_, took, err := call(c, "drop", 200*time.Millisecond, "lost")
	if !deadlineError(err) {
		t.Fatalf("dropped answer: %v, want the call's deadline", err)
	}
	within(t, "a call whose answer was dropped", took, 200*time.Millisecond+time.Second)
	mustAnswer(t, c, "ok", "after")
	if st := c.Stats(); st.Dials != 1 || st.Open != 1 {
		t.Errorf("stats %+v: the session did not go on", st)
	}
}

func TestClient_resilience_delayedAnswersOvertakingEachOtherReachTheirOwnCalls(t *testing.T) {
	c := resilient(t, newFaulty(t, "127.0.0.1:0"), &client.Options{Sessions: 1})
	const n = 64
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			want := fmt.Sprint("call-", i)
			// Later calls answer sooner: every answer overtakes others.
			got, _, err := call(c, "delay", 10*time.Second, want, (n-i)%16*5)
			if err != nil || got != want {
				t.Errorf("call %d: %q, %v", i, got, err)
			}
		})
	}
	wg.Wait()
	if st := c.Stats(); st.UnknownID+st.Duplicate+st.Late+st.Invalid != 0 || st.Dials != 1 {
		t.Errorf("stats %+v: want every answer matched on one session", st)
	}
}

func TestClient_resilience_duplicateAndUnknownAnswersAreIgnored(t *testing.T) {
	c := resilient(t, newFaulty(t, "127.0.0.1:0"), nil)
	for i := range 20 {
		mustAnswer(t, c, "dup", fmt.Sprint("dup-", i))
		mustAnswer(t, c, "unknown", fmt.Sprint("unknown-", i))
	}
	mustAnswer(t, c, "ok", "sync") // the server writes in order: all read now
	if st := c.Stats(); st.Duplicate != 20 || st.UnknownID != 40 || st.Dials != 1 {
		t.Errorf("stats %+v, want 20 duplicates, 40 unknown ids, one session", st)
	}
}

func TestClient_resilience_garbageIsSkippedAndTheStreamResyncs(t *testing.T) {
	c := resilient(t, newFaulty(t, "127.0.0.1:0"), nil)
	for i := range 20 {
		mustAnswer(t, c, "garbage", fmt.Sprint("after-garbage-", i))
	}
	if st := c.Stats(); st.Invalid != 20 || st.Dials != 1 {
		t.Errorf("stats %+v, want 20 invalid messages on one session", st)
	}
}

// An answer 64 times the frame limit is skipped without being held: its
// call ends at its deadline (documented: the oversized frame cannot be
// told apart from any other), the heap in use never grows by more than
// a fraction of the answer's size while it streams past, and the session
// goes on.
func TestClient_resilience_oversizedAnswerIsSkippedWithoutBeingBuffered(t *testing.T) {
	c := resilient(t, newFaulty(t, "127.0.0.1:0"), nil)
	mustAnswer(t, c, "ok", "warm")
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapInuse, ms.HeapInuse
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() { // the heap's peak while the answer streams in
		defer close(sampled)
		tk := time.NewTicker(2 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-tk.C:
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			case <-stop:
				return
			}
		}
	}()
	_, took, err := call(c, "huge", 3*time.Second, "")
	mustAnswer(t, c, "ok", "after") // read once the huge frame has been skipped
	close(stop)
	<-sampled
	if !deadlineError(err) {
		t.Fatalf("oversized answer: %v, want the call's deadline", err)
	}
	within(t, "a call answered with an oversized frame", took, 3*time.Second+time.Second)
	t.Logf("HeapInuse %.1f MiB, at most %.1f MiB while %d MiB streamed past", float64(base)/(1<<20), float64(peak)/(1<<20), hugeBytes>>20)
	if peak-base > hugeBytes/4 {
		t.Errorf("HeapInuse grew by %d MiB while a %d MiB answer was skipped", (peak-base)>>20, hugeBytes>>20)
	}
	if st := c.Stats(); st.Oversized != 1 || st.Dials != 1 {
		t.Errorf("stats %+v, want one oversized frame on one session", st)
	}
}

// A malformed answer naming a pending call (both a result and an error)
// fails that call at once with conn's malformed-response error, long
// before its deadline, and the connection goes on.
func TestClient_resilience_malformedAnswerFailsItsCallAtOnce(t *testing.T) {
	c := resilient(t, newFaulty(t, "127.0.0.1:0"), nil)
	const deadline = 30 * time.Second
	_, took, err := call(c, "malformed", deadline, "x")
	var e *codec.Error
	if !errors.As(err, &e) || e.Code != codec.CodeInternalError || !strings.HasPrefix(e.Message, conn.MalformedResponsePrefix) {
		t.Fatalf("a call answered with both a result and an error: %v, want a -32603 %q error", err, conn.MalformedResponsePrefix)
	}
	within(t, "a call answered with a malformed response", took, deadline/3)
	mustAnswer(t, c, "ok", "after")
}

func TestClient_resilience_killedServerFailsPendingCallsAndARedialReachesItsSuccessor(t *testing.T) {
	f := newFaulty(t, "127.0.0.1:0")
	addr := f.ln.Addr().String()
	c := resilient(t, f, &client.Options{Redial: client.Backoff{Base: 10 * time.Millisecond, Max: 50 * time.Millisecond}})
	mustAnswer(t, c, "ok", "before")
	const n = 8
	errs := make(chan error, n)
	for range n {
		go func() {
			_, _, err := call(c, "drop", 30*time.Second, "pending")
			errs <- err
		}()
	}
	waitFor(t, "the pending requests to reach the server", func() bool { return f.count("drop") == n })
	killed := time.Now()
	f.kill()
	for range n {
		err := <-errs
		var te *client.TransportError
		if !errors.As(err, &te) || !te.Sent {
			t.Errorf("pending call: %v, want a *client.TransportError with Sent", err)
		}
	}
	within(t, "failing the pending calls after the kill", time.Since(killed), 2*time.Second)
	// A new server on the same address: the next call dials it.
	newFaulty(t, addr)
	mustAnswer(t, c, "ok", "after")
	if st := c.Stats(); st.Dials != 2 {
		t.Errorf("stats %+v, want a second dial", st)
	}
}

// A server that accepts, then neither reads nor answers nor closes: each
// call ends at its own deadline, and closing the client leaves no
// goroutine (resilient's goleak check).
func TestClient_resilience_blackHoledServerFailsCallsAtTheirDeadlines(t *testing.T) {
	c := resilient(t, newFaulty(t, "127.0.0.1:0"), nil)
	var wg sync.WaitGroup
	for i, d := range []time.Duration{100, 200, 300} {
		wg.Go(func() {
			method := "drop"
			if i == 0 {
				method = "blackhole"
			}
			_, took, err := call(c, method, d*time.Millisecond, "void")
			if !deadlineError(err) {
				t.Errorf("call %d: %v, want its deadline", i, err)
			}
			within(t, "a call to a black hole", took, d*time.Millisecond+time.Second)
		})
	}
	wg.Wait()
}
