package client_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

func TestClient_cacheKeepsResultsForTheirTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var runs atomic.Int64
		r := router.New()
		count := router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
			n := runs.Add(1)
			if string(req.Params) == `{"fail":true}` {
				return nil, codec.NewError(codec.CodeInvalidParams, "no")
			}
			return n, nil
		})
		for _, m := range []string{"get", "other"} {
			if err := r.Register(m, count, nil); err != nil {
				t.Fatal(err)
			}
		}
		dial, stop := inProcess(r)
		defer stop()
		c := client.New(dial, &client.Options{Cache: &client.CacheOptions{Methods: []string{"get"}, TTL: time.Minute, MaxEntries: 2}})
		defer c.Close()
		ctx := context.Background()
		call := func(method string, params any) int64 {
			t.Helper()
			var n int64
			if err := c.Call(ctx, method, params, &n); err != nil {
				t.Fatalf("%s %v: %v", method, params, err)
			}
			return n
		}
		if n := call("get", map[string]int{"a": 1, "b": 2}); n != 1 {
			t.Fatalf("first call: run %d", n)
		}
		// The same params spelled otherwise: the same entry.
		if n := call("get", codec.Raw(`{ "b":2,"a" : 1 }`)); n != 1 {
			t.Fatalf("same params: run %d, want the cached 1", n)
		}
		// CallRaw's result is the caller's: changing it changes no entry.
		raw, err := c.CallRaw(ctx, "get", codec.Raw(`{"a":1,"b":2}`))
		if err != nil || string(raw) != "1" {
			t.Fatalf("CallRaw: %s, %v", raw, err)
		}
		raw[0] = '9'
		if n := call("get", map[string]int{"a": 1, "b": 2}); n != 1 {
			t.Fatalf("after changing CallRaw's result: %d", n)
		}
		if n := call("other", nil); n != 2 {
			t.Fatalf("uncached method: run %d", n)
		}
		if n := call("other", nil); n != 3 {
			t.Fatalf("uncached method again: run %d", n)
		}
		time.Sleep(time.Minute) // the TTL has gone by
		if n := call("get", map[string]int{"a": 1, "b": 2}); n != 4 {
			t.Fatalf("after the TTL: run %d, want a new run", n)
		}
		// Errors are not kept.
		for want := int64(5); want <= 6; want++ {
			var e *codec.Error
			if err := c.Call(ctx, "get", map[string]bool{"fail": true}, nil); !errors.As(err, &e) {
				t.Fatalf("failing call: %v", err)
			}
			if runs.Load() != want {
				t.Fatalf("failing call ran %d times, want %d", runs.Load(), want)
			}
		}
		// Two entries at most: the one used since it came in stays.
		call("get", []int{1}) // run 7; {"a":1,"b":2} is now the older
		call("get", []int{2}) // run 8: evicts {"a":1,"b":2}
		if n := call("get", []int{1}); n != 7 {
			t.Fatalf("[1]: %d, want the cached 7", n)
		}
		if n := call("get", map[string]int{"a": 1, "b": 2}); n != 9 {
			t.Fatalf("evicted entry: %d, want a new run", n)
		}
		st := c.Stats()
		if st.CacheHits != 4 || st.CacheMisses != 7 {
			t.Fatalf("stats %+v, want 4 hits, 7 misses", st)
		}
	})
}

// Identical calls of a cached method made while the first is on its way
// share its answer: the server runs the method once.
func TestClient_cacheSharesOneCallAmongIdenticalOnes(t *testing.T) {
	var runs atomic.Int64
	release := make(chan struct{})
	r := router.New()
	slow := router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
		n := runs.Add(1)
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return n, nil
	})
	if err := r.Register("get", slow, nil); err != nil {
		t.Fatal(err)
	}
	dial, stop := inProcess(r)
	defer stop()
	c := client.New(dial, &client.Options{Cache: &client.CacheOptions{Methods: []string{"get"}}})
	defer c.Close()
	const n = 16
	results := make(chan int64, n)
	errs := make(chan error, n)
	for range n {
		go func() {
			var got int64
			err := c.Call(context.Background(), "get", []int{1}, &got)
			errs <- err
			results <- got
		}()
	}
	// Every call has asked the cache (a miss each) before the first
	// answer comes.
	deadline := time.Now().Add(10 * time.Second)
	for c.Stats().CacheMisses < n {
		if time.Now().After(deadline) {
			t.Fatalf("stats %+v: the calls did not all reach the cache", c.Stats())
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		if got := <-results; got != 1 {
			t.Errorf("a call got run %d, want the shared run 1", got)
		}
	}
	if runs.Load() != 1 {
		t.Fatalf("the method ran %d times for %d identical calls", runs.Load(), n)
	}
}
