package middleware_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/middleware"
	"github.com/mcpwire/mcpwire/router"
)

const callEcho = `{"jsonrpc":"2.0","id":1,"method":"echo"}`

// retryAfter checks that msg is -32011 and returns its data.retryAfterMs.
func retryAfter(t *testing.T, msg string) int {
	t.Helper()
	r := decode(t, msg)
	if r.code() != -32011 {
		t.Fatalf("want -32011, got %s", msg)
	}
	var data struct {
		RetryAfterMs *int `json:"retryAfterMs"`
	}
	if err := json.Unmarshal(r.Error.Data, &data); err != nil || data.RetryAfterMs == nil {
		t.Fatalf("no data.retryAfterMs: %s", msg)
	}
	return *data.RetryAfterMs
}

func TestRateLimit_perSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mw := middleware.RateLimit(rate.Every(time.Second), 2, nil)
		a := newSession(t, conn.Peer{Transport: "tcp", Addr: "127.0.0.1:1000"}, nil, mw)
		b := newSession(t, conn.Peer{Transport: "tcp", Addr: "127.0.0.1:1000"}, nil, mw)
		for range 2 {
			if r := decode(t, a.call(callEcho)); r.code() != 0 {
				t.Fatalf("within the burst: %+v", r.Error)
			}
		}
		if ms := retryAfter(t, a.call(callEcho)); ms != 1000 {
			t.Errorf("retryAfterMs %d, want 1000", ms)
		}
		// The refused call cost nothing: the next token is still 1 s away.
		time.Sleep(999 * time.Millisecond)
		if ms := retryAfter(t, a.call(callEcho)); ms != 1 {
			t.Errorf("retryAfterMs %d, want 1", ms)
		}
		// Another session (same address: a session is a peer) has its own.
		if r := decode(t, b.call(callEcho)); r.code() != 0 {
			t.Errorf("another session was limited: %+v", r.Error)
		}
		time.Sleep(time.Millisecond)
		if r := decode(t, a.call(callEcho)); r.code() != 0 {
			t.Errorf("after the wait: %+v", r.Error)
		}
		// A batch: each element counts.
		time.Sleep(2 * time.Second)
		var got []response
		if err := json.Unmarshal([]byte(a.call(`[`+callEcho+`,`+callEcho+`,`+callEcho+`]`)), &got); err != nil || len(got) != 3 {
			t.Fatalf("batch: %v %v", got, err)
		}
		// Its elements run in parallel: any one of them may be the third.
		codes := map[int]int{}
		for _, r := range got {
			codes[r.code()]++
		}
		if codes[0] != 2 || codes[-32011] != 1 {
			t.Errorf("batch codes %v, want two results and one -32011", codes)
		}
	})
}

func TestRateLimit_httpPeersByIP(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mw := middleware.RateLimit(rate.Every(time.Second), 1, nil)
		s1 := newSession(t, conn.Peer{Transport: "http", Addr: "127.0.0.1:40001"}, nil, mw)
		s2 := newSession(t, conn.Peer{Transport: "http", Addr: "127.0.0.1:40002"}, nil, mw)
		other := newSession(t, conn.Peer{Transport: "http", Addr: "127.0.0.2:40001"}, nil, mw)
		v6 := newSession(t, conn.Peer{Transport: "http", Addr: "[::1]:40001"}, nil, mw)
		ws1 := newSession(t, conn.Peer{Transport: "ws", Addr: "127.0.0.1:40003"}, nil, mw)
		if r := decode(t, s1.call(callEcho)); r.code() != 0 {
			t.Fatalf("first call: %+v", r.Error)
		}
		// Same IP, another port (another connection): the same peer.
		if ms := retryAfter(t, s2.call(callEcho)); ms != 1000 {
			t.Errorf("retryAfterMs %d", ms)
		}
		for name, s := range map[string]*session{"another IP": other, "IPv6": v6, "a WebSocket from the same IP": ws1} {
			if r := decode(t, s.call(callEcho)); r.code() != 0 {
				t.Errorf("%s was limited: %+v", name, r.Error)
			}
		}
	})
}

func TestRateLimit_retryAfterRoundsUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSession(t, conn.Peer{Transport: "stdio"}, nil, middleware.RateLimit(3, 1, nil))
		s.call(callEcho)
		if ms := retryAfter(t, s.call(callEcho)); ms != 334 { // 333.3… ms
			t.Errorf("retryAfterMs %d, want 334", ms)
		}
	})
}

func TestRateLimit_zeroRateRefusesPastTheBurst(t *testing.T) {
	s := newSession(t, conn.Peer{Transport: "stdio"}, nil, middleware.RateLimit(0, 1, nil))
	if r := decode(t, s.call(callEcho)); r.code() != 0 {
		t.Fatalf("the burst: %+v", r.Error)
	}
	if ms := retryAfter(t, s.call(callEcho)); ms != 3600000 {
		t.Errorf("retryAfterMs %d, want an hour", ms)
	}
}

// Concurrent calls of one peer at one instant: exactly the burst passes.
func TestRateLimit_concurrentCallsOfOnePeer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ran atomic.Int64
		h := middleware.RateLimit(rate.Every(time.Second), 10, &middleware.RateOptions{
			Key: func(context.Context) any { return "one" },
		})(router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
			ran.Add(1)
			return nil, nil
		}))
		var wg sync.WaitGroup
		var refused atomic.Int64
		for range 100 {
			wg.Go(func() {
				if _, err := h.Handle(context.Background(), &router.Request{Method: "m"}); errors.Is(err, &codec.Error{Code: codec.CodeTooManyRequests}) {
					refused.Add(1)
				}
			})
		}
		wg.Wait()
		if ran.Load() != 10 || refused.Load() != 90 {
			t.Errorf("ran %d, refused %d; want 10 and 90", ran.Load(), refused.Load())
		}
	})
}

func TestRateLimit_infReturnsTheHandler(t *testing.T) {
	h := &plain{}
	if got := middleware.RateLimit(rate.Inf, 1, nil)(h); got != router.Handler(h) {
		t.Errorf("wrapped: %T", got)
	}
}

func TestPeerKey(t *testing.T) {
	if k := middleware.PeerKey(context.Background()); k != nil {
		t.Errorf("outside a session: %v", k)
	}
	keys := map[string]any{}
	for _, p := range []conn.Peer{
		{Transport: "http", Addr: "10.0.0.1:80"},
		{Transport: "http", Addr: "[2001:db8::1]:80"},
		{Transport: "http", Addr: "no-port"},
		{Transport: "tcp", Addr: "10.0.0.1:80"},
		{Transport: "ws", Addr: "10.0.0.1:80"},
	} {
		var got any // the key a handler of a session bound with p sees
		r := router.New()
		r.Register("k", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
			got = middleware.PeerKey(ctx)
			return nil, nil
		}), nil)
		c := conn.NewStream(nil, &conn.Options{Peer: p, Router: r})
		defer c.Close()
		c.ServeBody(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"k"}`), func([]byte) {})
		switch p.Transport {
		case "http":
			keys[p.Addr] = got
		default:
			if got != c {
				t.Errorf("%v: key %v, want the session", p, got)
			}
		}
	}
	for addr, want := range map[string]any{"10.0.0.1:80": "10.0.0.1", "[2001:db8::1]:80": "2001:db8::1", "no-port": "no-port"} {
		if keys[addr] != want {
			t.Errorf("%s: key %v, want %v", addr, keys[addr], want)
		}
	}
}
