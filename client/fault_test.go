package client_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/testproc"
)

// killMidCall starts calls of sleep that would take 9 s on c, kills the
// server once they all run there (metrics is the URL of its metrics, ""
// while unknown), and checks that every one fails within 100 ms of the
// kill with a transport error.
func killMidCall(t *testing.T, c *client.Client, metrics func() string, kill func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Every session is open (a warm-up call each) before the sleeps go out.
	if err := c.Call(ctx, "echo", []int{0}, nil); err != nil {
		t.Fatal(err)
	}
	const n = 16
	type outcome struct {
		err error
		at  time.Time
	}
	out := make(chan outcome, n)
	for i := range n {
		go func() {
			err := c.Call(ctx, "sleep", map[string]int{"ms": 9_000 + i}, nil)
			out <- outcome{err, time.Now()}
		}()
	}
	waitFor(t, "the sleeps to run on the server", func() bool { return inFlight(t, metrics()) == n })
	killed := time.Now()
	kill()
	var slowest time.Duration
	defer func() { t.Logf("the slowest pending call failed %v after the kill", slowest) }()
	for range n {
		o := <-out
		slowest = max(slowest, o.at.Sub(killed))
		var te *client.TransportError
		if !errors.As(o.err, &te) {
			t.Errorf("pending call ended with %v, want a *client.TransportError", o.err)
		}
		within(t, "a pending call's failure after the kill", o.at.Sub(killed), 100*time.Millisecond)
	}
}

// inFlight returns the handlers in flight that the demo server's metrics
// at url count, or -1 if url is "" or they cannot be read.
func inFlight(t *testing.T, url string) int {
	t.Helper()
	if url == "" {
		return -1
	}
	res, err := http.Get(url)
	if err != nil {
		return -1
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "mcpwire_in_flight "); ok {
			if n, err := strconv.ParseFloat(v, 64); err == nil {
				return int(n)
			}
		}
	}
	return -1
}

func TestClient_serverKilledMidCall_everyPendingCallFailsWithin100ms(t *testing.T) {
	srv := testproc.Start(t, demoserver.Path(t), []string{"-listen", "tcp://127.0.0.1:0", "-metrics", "127.0.0.1:0"}, "addr", "metrics")
	c, err := client.Dial(context.Background(), srv.Value("addr"), &client.Options{Sessions: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	killMidCall(t, c, func() string { return srv.Value("metrics") }, srv.Kill)
}

func TestClient_stdioChildKilledMidCall_everyPendingCallFailsWithin100ms(t *testing.T) {
	var mu sync.Mutex
	var children []*exec.Cmd
	var logs []*testproc.LockedBuffer
	c, err := client.DialCommand(context.Background(), func() *exec.Cmd {
		cmd := exec.Command(demoserver.Path(t), "-metrics", "127.0.0.1:0")
		log := new(testproc.LockedBuffer)
		cmd.Stderr = log
		mu.Lock()
		children = append(children, cmd)
		logs = append(logs, log)
		mu.Unlock()
		return cmd
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	metrics := func() string { // as the first child logged it
		mu.Lock()
		defer mu.Unlock()
		_, url, _ := strings.Cut(logs[0].String(), " metrics=")
		url, _, _ = strings.Cut(url, "\n")
		return strings.TrimSpace(url)
	}
	killMidCall(t, c, metrics, func() {
		mu.Lock()
		defer mu.Unlock()
		children[0].Process.Kill()
	})
	// The next call starts a new child.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []string
	if err := c.Call(ctx, "echo", []string{"again"}, &got); err != nil || len(got) != 1 || got[0] != "again" {
		t.Fatalf("call after the child died: %v, %v", got, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(children) != 2 {
		t.Fatalf("%d children started, want 2", len(children))
	}
}

// In a synctest bubble (net.Pipe, virtual time): each call returns at its
// deadline exactly, where real time could only bound it on a loaded
// machine.
func TestClient_serverThatNeverAnswers_eachCallReturnsAtItsDeadline(t *testing.T) {
	synctest.Test(t, testClientServerThatNeverAnswers)
}

func testClientServerThatNeverAnswers(t *testing.T) {
	// A server that reads and never writes.
	var wg sync.WaitGroup
	var mu sync.Mutex
	var accepted []net.Conn
	dial := func(context.Context) (conn.Stream, error) {
		nc, server := net.Pipe()
		mu.Lock()
		accepted = append(accepted, server)
		mu.Unlock()
		wg.Go(func() { io.Copy(io.Discard, server) })
		return conn.NewByteStream(nc, nil, nil), nil
	}
	defer func() {
		mu.Lock()
		for _, nc := range accepted {
			nc.Close()
		}
		mu.Unlock()
		wg.Wait()
	}()
	c := client.New(dial, &client.Options{
		Sessions: 2, Timeout: 250 * time.Millisecond, Idempotent: []string{"get"},
	})
	defer c.Close()
	var calls sync.WaitGroup
	for i, d := range []time.Duration{50, 100, 150, 200, 0} {
		calls.Go(func() {
			start := time.Now() // before the deadline is set
			ctx := context.Background()
			want := 250 * time.Millisecond // Options.Timeout
			if d > 0 {
				var cancel context.CancelFunc
				want = d * time.Millisecond
				ctx, cancel = context.WithTimeout(ctx, want)
				defer cancel()
			}
			method := "put"
			if i%2 == 0 {
				method = "get" // idempotent: a deadline is no retryable outcome
			}
			err := c.Call(ctx, method, []int{i}, nil)
			took := time.Since(start)
			var ce *conn.CanceledCallError
			if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &ce) {
				t.Errorf("call %d: %v, want its deadline (a *conn.CanceledCallError)", i, err)
			}
			if took != want {
				t.Errorf("call %d with deadline %v returned after %v", i, want, took)
			}
		})
	}
	calls.Wait()
	if st := c.Stats(); st.Retries != 0 {
		t.Errorf("stats %+v: a call past its deadline was retried", st)
	}
}

func TestClient_badResponses_reachNoCallerAndAreCounted(t *testing.T) {
	oversized := `{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("x", 8<<10) + `"}`
	srv := newScripted(t, func(r wireRequest) ([]string, bool) {
		if r.Method == "sync" {
			return []string{result(r, `"synced"`)}, false
		}
		return []string{
			`}{ not json`,
			oversized,
			`{"jsonrpc":"2.0","id":987654321,"result":"stolen"}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"whose?"}}`,
			result(r, string(r.Params)),
			result(r, `"duplicate"`),
		}, false
	})
	c, err := client.Dial(context.Background(), srv.addr(), &client.Options{
		Session: &conn.Options{Limits: &codec.Limits{MaxFrameBytes: 4 << 10}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var got []string
			want := fmt.Sprint("caller-", i)
			if err := c.Call(ctx, "echo", []string{want}, &got); err != nil || len(got) != 1 || got[0] != want {
				t.Errorf("caller %d got %v, %v", i, got, err)
			}
		})
	}
	wg.Wait()
	// The server writes in order: once this is answered, everything it
	// sent before has been read.
	var synced string
	if err := c.Call(ctx, "sync", nil, &synced); err != nil || synced != "synced" {
		t.Fatalf("sync: %q, %v: the client is not usable any more", synced, err)
	}
	st := c.Stats()
	want := client.Stats{Open: 1, Dials: 1, UnknownID: 2 * n, Duplicate: n, Invalid: 2 * n, Oversized: n}
	if st != want {
		t.Errorf("stats %+v, want %+v", st, want)
	}
}

func TestClient_malformedAnswerFailsItsCallAtOnce(t *testing.T) {
	srv := newScripted(t, func(r wireRequest) ([]string, bool) {
		switch r.Method {
		case "both":
			return []string{
				`{"jsonrpc":"2.0","id":` + string(r.ID) + `,"result":"both","error":{"code":1,"message":"malformed"}}`,
				result(r, `"too late"`),
			}, false
		case "nocode":
			return []string{`{"jsonrpc":"2.0","id":` + string(r.ID) + `,"error":{"message":"no code"}}`}, false
		}
		return []string{result(r, `"ok"`)}, false
	})
	c, err := client.Dial(context.Background(), srv.addr(), &client.Options{
		Idempotent: []string{"both", "nocode"}, // yet a malformed answer is no retryable outcome
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, method := range []string{"both", "nocode"} {
		// Without the fix the call waits for this deadline.
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		err := c.Call(ctx, method, nil, nil)
		cancel()
		var e *codec.Error
		if !errors.As(err, &e) || e.Code != codec.CodeInternalError || !strings.HasPrefix(e.Message, conn.MalformedResponsePrefix) {
			t.Fatalf("%s: %v, want -32603 %q…", method, err, conn.MalformedResponsePrefix)
		}
	}
	// The server writes in order: once this is answered, "too late" has
	// been read, and counted as a second answer to its call.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got string
	if err := c.Call(ctx, "sync", nil, &got); err != nil || got != "ok" {
		t.Fatalf("sync: %q, %v: the client is not usable any more", got, err)
	}
	if st := c.Stats(); st.Retries != 0 || st.Duplicate != 1 || st.Dials != 1 {
		t.Errorf("stats %+v, want no retry, 1 duplicate, 1 dial", st)
	}
}

func TestClient_lateAnswersAreToldFromDuplicates(t *testing.T) {
	srv := newScripted(t, func(r wireRequest) ([]string, bool) {
		if r.Method == "slow" {
			time.Sleep(100 * time.Millisecond) // past the caller's deadline
			return []string{result(r, `"late"`), result(r, `"late again"`)}, false
		}
		return []string{result(r, `"ok"`)}, false
	})
	c, err := client.Dial(context.Background(), srv.addr(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := c.Call(ctx, "slow", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow: %v, want its deadline", err)
	}
	// The server answers in order: once this is answered, the late ones
	// have been read.
	if err := c.Call(context.Background(), "sync", nil, nil); err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st.Late != 1 || st.Duplicate != 1 || st.UnknownID != 0 {
		t.Fatalf("stats %+v, want 1 late, 1 duplicate", st)
	}
}
