package client_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/codec"
)

// fastRetry retries idempotent calls up to 4 attempts with short waits.
var fastRetry = client.Retry{MaxAttempts: 4, Backoff: client.Backoff{Base: time.Millisecond, Max: 4 * time.Millisecond}}

func TestClient_retriesStopAtMaxAttemptsAndOnlyForIdempotentCalls(t *testing.T) {
	srv := newScripted(t, func(r wireRequest) ([]string, bool) {
		switch r.Method {
		case "overloaded", "overloaded_put":
			return []string{errorLine(r, -32000, `{"retryAfterMs":30}`)}, false
		case "timeout":
			return []string{errorLine(r, -32012, "")}, false
		case "rate_limited":
			return []string{errorLine(r, -32011, `{"retryAfterMs":20}`)}, false
		case "hangup": // the request was written: the server got it
			return nil, true
		}
		return []string{errorLine(r, -32601, "")}, false
	})
	c, err := client.Dial(context.Background(), srv.addr(), &client.Options{
		Retry: fastRetry, Idempotent: []string{"overloaded", "timeout", "rate_limited", "hangup", "unknown"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, tc := range []struct {
		method   string
		opts     []client.CallOption
		code     codec.Code // 0: a transport error
		requests int
		least    time.Duration
	}{
		{"overloaded", nil, codec.CodeOverloaded, 4, 3 * 30 * time.Millisecond}, // retryAfterMs is the least wait
		{"overloaded_put", nil, codec.CodeOverloaded, 1, 0},                     // not idempotent
		{"overloaded_put", []client.CallOption{client.Idempotent()}, codec.CodeOverloaded, 1 + 4, 3 * 30 * time.Millisecond},
		{"timeout", nil, codec.CodeRequestTimeout, 4, 0},
		{"rate_limited", nil, codec.CodeTooManyRequests, 4, 3 * 20 * time.Millisecond}, // refused before it ran, like -32000
		{"unknown", nil, codec.CodeMethodNotFound, 1, 0},
		{"hangup", nil, 0, 1, 0}, // may have been written: never again
	} {
		before := c.Stats().Retries
		start := time.Now()
		err := c.Call(ctx, tc.method, nil, nil, tc.opts...)
		took := time.Since(start)
		var e *codec.Error
		var te *client.TransportError
		switch {
		case tc.code != 0 && (!errors.As(err, &e) || e.Code != tc.code):
			t.Errorf("%s: %v, want code %d", tc.method, err, tc.code)
		case tc.code == 0 && (!errors.As(err, &te) || !te.Sent):
			t.Errorf("%s: %v, want a transport error after sending", tc.method, err)
		}
		if got := srv.count(tc.method); got != tc.requests {
			t.Errorf("%s: the server read %d requests, want %d", tc.method, got, tc.requests)
		}
		if took < tc.least {
			t.Errorf("%s: the retries took %v, want at least %v", tc.method, took, tc.least)
		}
		retries := c.Stats().Retries - before
		if want := uint64(tc.requests - 1); tc.method != "overloaded_put" && retries != want {
			t.Errorf("%s: Stats.Retries went up by %d, want %d", tc.method, retries, want)
		}
	}
}

func TestClient_retryGivesUpWhenTheWaitOutlastsTheDeadline(t *testing.T) {
	srv := newScripted(t, func(r wireRequest) ([]string, bool) {
		return []string{errorLine(r, -32000, `{"retryAfterMs":5000}`)}, false
	})
	c, err := client.Dial(context.Background(), srv.addr(), &client.Options{Retry: fastRetry, Idempotent: []string{"get"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	err = c.Call(ctx, "get", nil, nil)
	var e *codec.Error
	if !errors.As(err, &e) || e.Code != codec.CodeOverloaded {
		t.Fatalf("%v, want the server's -32000", err)
	}
	within(t, "a call whose retry would outlast its deadline", time.Since(start), 500*time.Millisecond)
	if n := srv.count("get"); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestClient_idempotentCallRetriesAFailedDial(t *testing.T) {
	// A port nobody listens on: every dial is refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "tcp://" + ln.Addr().String()
	ln.Close()
	c := client.New(dialer(t, addr), &client.Options{
		Retry: fastRetry, Redial: client.Backoff{Base: time.Millisecond, Max: 2 * time.Millisecond},
	})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var te *client.TransportError
	if err := c.Call(ctx, "put", nil, nil); !errors.As(err, &te) || te.Sent {
		t.Fatalf("not idempotent: %v, want a transport error before sending", err)
	}
	if st := c.Stats(); st.DialErrors != 1 || st.Retries != 0 {
		t.Fatalf("not idempotent: stats %+v, want one dial", st)
	}
	if err := c.Call(ctx, "get", nil, nil, client.Idempotent()); !errors.As(err, &te) || te.Sent {
		t.Fatalf("idempotent: %v, want a transport error before sending", err)
	}
	if st := c.Stats(); st.DialErrors != 1+4 || st.Retries != 3 {
		t.Fatalf("idempotent: stats %+v, want 4 more dials, 3 retries", st)
	}
}

func TestClient_idempotentCallRetriedPastARealServersOverload(t *testing.T) {
	// One request in flight per session, refused past it with -32000 and
	// retryAfterMs (50 ms); echo on the pool too.
	srv := startServer(t, "-overload", "reject", "-max-inflight", "1", "-inline=false")
	c, err := client.Dial(context.Background(), srv.addr, &client.Options{
		Retry: client.Retry{MaxAttempts: 20, Backoff: client.Backoff{Base: time.Millisecond, Max: 10 * time.Millisecond}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	busy := make(chan error, 1)
	sleep := func() { go func() { busy <- c.Call(ctx, "sleep", map[string]int{"ms": 300}, nil) }() }
	overloaded := func(err error) bool {
		var e *codec.Error
		return errors.As(err, &e) && e.Code == codec.CodeOverloaded
	}
	sleep()
	// Once the sleep holds the session's one slot, a call that is not
	// idempotent is refused at once; until then it is answered. A sleep
	// that arrived while an echo held the slot was refused itself: it is
	// sent again.
	for deadline := time.Now().Add(5 * time.Second); ; {
		err := c.Call(ctx, "echo", []int{1}, nil)
		if st := c.Stats(); st.Retries != 0 {
			t.Fatalf("stats %+v: a call that is not idempotent was retried", st)
		}
		if overloaded(err) {
			break
		}
		if err != nil {
			t.Fatalf("not idempotent: %v, want -32000 at once", err)
		}
		select {
		case err := <-busy:
			if err != nil && !overloaded(err) {
				t.Fatal(err)
			}
			sleep()
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the sleep never held the session's slot")
		}
	}
	var got []int
	start := time.Now()
	if err := c.Call(ctx, "echo", []int{2}, &got, client.Idempotent()); err != nil || len(got) != 1 || got[0] != 2 {
		t.Fatalf("idempotent: %v, %v: want it answered once the slot is free", got, err)
	}
	// Retries wait the server's retryAfterMs (50 ms), not the 1–10 ms
	// backoff: at most one per 50 ms of the time the call took (however
	// long a loaded machine made the sleep), and one more for the edges.
	most := int(time.Since(start)/(50*time.Millisecond)) + 1
	if st := c.Stats(); st.Retries < 1 || st.Retries > uint64(most) {
		t.Errorf("stats %+v: want between 1 and %d retries, ~50 ms apart across what was left of the sleep", st, most)
	}
	if err := <-busy; err != nil {
		t.Fatal(err)
	}
}
