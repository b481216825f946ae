package cache_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/cache"
	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// TestSession_identicalConcurrentCallsRunTheHandlerOnce: 64 identical calls
// in flight at once on a slow cached method run its handler once and are
// all answered its result with their own ids; later identical calls,
// however their params are spelled, are answered from the stored bytes on
// the reader (no hand-off, no run) with their ids echoed byte for byte.
func TestSession_identicalConcurrentCallsRunTheHandlerOnce(t *testing.T) {
	const calls = 64
	c := cache.New(nil)
	release := make(chan struct{})
	var runs atomic.Int64
	r := router.New()
	err := r.Register("slow", router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
		runs.Add(1)
		<-release // slow: until every call has arrived
		return struct {
			Params codec.Raw `json:"params"`
			Words  []string  `json:"words"`
		}{codec.Raw(req.Params), []string{"a", "b"}}, nil
	}), &router.MethodOptions{Cache: c.Method(0)})
	if err != nil {
		t.Fatal(err)
	}
	ex := newPool(t, calls)
	p := serve(t, r, ex)

	lines := make([]string, calls)
	for i := range lines {
		lines[i] = `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"slow","params":{"a":1,"b":[2,3]}}`
	}
	p.send(lines...)
	waitFor(t, "every call to reach the cache", func() bool { return c.Misses() == calls })
	close(release)

	const result = `{"params":{"a":1,"b":[2,3]},"words":["a","b"]}`
	var ids []int
	for range calls {
		answer := p.recv()
		id, err := strconv.Atoi(idOf(t, answer))
		if err != nil || string(answer) != `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"result":`+result+`}` {
			t.Fatalf("answer %s", answer)
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if ids = slices.Compact(ids); len(ids) != calls || ids[0] != 0 || ids[calls-1] != calls-1 {
		t.Fatalf("answered ids %v", ids)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("the handler ran %d times for %d identical concurrent calls", n, calls)
	}

	handOffs, hits := ex.n.Load(), c.Hits()
	for _, tc := range []struct{ id, params string }{
		{`1.50`, `{"a":1,"b":[2,3]}`},
		{`"\u00e9"`, ` { "b" : [2,3], "a":1 }`},
		{`12345678901234567890`, "{\"b\":[2,\t3],\r\"\\u0061\":1}"},
		{`-0`, `{"a":1,"b":[2,3]}`},
	} {
		answer := p.call(`{"jsonrpc":"2.0","method":"slow","params":` + tc.params + `,"id":` + tc.id + `}`)
		if want := `{"jsonrpc":"2.0","id":` + tc.id + `,"result":` + result + `}`; string(answer) != want {
			t.Fatalf("hit answered\n%s\nwant\n%s", answer, want)
		}
	}
	if runs.Load() != 1 || ex.n.Load() != handOffs || c.Hits() != hits+4 {
		t.Fatalf("hits: %d runs, %d more hand-offs, %d more hits; want 1, 0, 4",
			runs.Load(), ex.n.Load()-handOffs, c.Hits()-hits)
	}
}

// TestSession_errorIsNotCached: a failed call stores nothing, so the next
// identical call runs the handler again; a success is then stored.
func TestSession_errorIsNotCached(t *testing.T) {
	c := cache.New(nil)
	var runs atomic.Int64
	r := router.New()
	r.Register("flaky", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		if runs.Add(1) == 1 {
			return nil, codec.NewError(codec.CodeInternalError, "try again")
		}
		return "ok", nil
	}), &router.MethodOptions{Cache: c.Method(0)})
	p := serve(t, r, newPool(t, 4))

	req := `{"jsonrpc":"2.0","id":7,"method":"flaky","params":[1]}`
	if a := string(p.call(req)); a != `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"try again"}}` {
		t.Fatalf("first call: %s", a)
	}
	if c.Len() != 0 {
		t.Fatalf("an error was stored: %d entries", c.Len())
	}
	for range 2 {
		if a := string(p.call(req)); a != `{"jsonrpc":"2.0","id":7,"result":"ok"}` {
			t.Fatalf("after the error: %s", a)
		}
	}
	if n := runs.Load(); n != 2 || c.Hits() != 1 {
		t.Fatalf("%d runs, %d hits; want 2 (the error, then the success) and 1", n, c.Hits())
	}
}

// TestSession_keyIgnoresObjectSpellingNotArrayOrder: the same members in
// another order or with other white space share a key; elements in
// another order do not.
func TestSession_keyIgnoresObjectSpellingNotArrayOrder(t *testing.T) {
	c := cache.New(nil)
	var runs atomic.Int64
	r := router.New()
	r.Register("f", router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
		runs.Add(1)
		return codec.Raw(req.Params), nil
	}), &router.MethodOptions{Cache: c.Method(0)})
	p := serve(t, r, newPool(t, 4))

	for i, tc := range []struct {
		params, result string
		runs           int64
	}{
		{`{"a":1,"b":[2,3]}`, `{"a":1,"b":[2,3]}`, 1},
		{` { "b" : [2,3], "a":1 }`, `{"a":1,"b":[2,3]}`, 1},
		{`[1,2]`, `[1,2]`, 2},
		{`[2,1]`, `[2,1]`, 3},
		{`[ 1 , 2 ]`, `[1,2]`, 3},
	} {
		a := string(p.call(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"f","params":` + tc.params + `}`))
		if want := `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"result":` + tc.result + `}`; a != want || runs.Load() != tc.runs {
			t.Fatalf("params %s: %s after %d runs; want %s after %d", tc.params, a, runs.Load(), want, tc.runs)
		}
	}
}

// TestSession_notificationsBypassTheCache: a notification runs the handler
// every time, stores nothing and is not answered.
func TestSession_notificationsBypassTheCache(t *testing.T) {
	c := cache.New(nil)
	var runs atomic.Int64
	r := router.New()
	r.Register("n", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		return runs.Add(1), nil
	}), &router.MethodOptions{Cache: c.Method(0)})
	p := serve(t, r, newPool(t, 4))
	p.send(`{"jsonrpc":"2.0","method":"n"}`, `{"jsonrpc":"2.0","method":"n"}`)
	waitFor(t, "two runs", func() bool { return runs.Load() == 2 })
	if a := string(p.call(`{"jsonrpc":"2.0","id":1,"method":"n"}`)); a != `{"jsonrpc":"2.0","id":1,"result":3}` {
		t.Fatalf("the first call after two notifications: %s", a)
	}
	if c.Len() != 1 || c.Misses() != 1 {
		t.Fatalf("%d entries, %d misses; want only the call's", c.Len(), c.Misses())
	}
}

// TestSession_memoryStaysUnderTheByteBound: ten times MaxBytes of distinct
// results flow through a session; the cache's count never passes its
// bounds, and the heap does not keep what it evicted.
func TestSession_memoryStaysUnderTheByteBound(t *testing.T) {
	const (
		maxBytes   = 1 << 20
		resultSize = 8 << 10
		calls      = 10 * maxBytes / resultSize
	)
	c := cache.New(&cache.Options{MaxBytes: maxBytes, MaxEntries: 1000})
	r := router.New()
	r.Register("blob", router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
		return strings.Repeat("x", resultSize-len(req.Params)) + string(req.Params), nil
	}), &router.MethodOptions{Cache: c.Method(0)})
	p := serve(t, r, newPool(t, 4))

	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	peak := int64(0)
	for i := range calls {
		a := p.call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"blob","params":[%d]}`, i, i))
		if len(a) < resultSize || !strings.HasSuffix(string(a), fmt.Sprintf(`[%d]"}`, i)) {
			t.Fatalf("call %d answered %.80s…", i, a)
		}
		b := c.Bytes()
		if b > maxBytes || c.Len() > 1000 {
			t.Fatalf("after call %d: %d bytes in %d entries; bounds %d and 1000", i, b, c.Len(), maxBytes)
		}
		peak = max(peak, b)
	}
	grown := int64(heap()) - int64(before)
	t.Logf("%d calls of %d bytes: peak %d bytes, %d entries, %d evictions; heap grew %d bytes",
		calls, resultSize, peak, c.Len(), c.Evictions(), grown)
	if peak < maxBytes*8/10 || c.Evictions() == 0 {
		t.Fatalf("the cache never filled up (peak %d bytes, %d evictions): the test proves nothing", peak, c.Evictions())
	}
	// Everything that flowed through, kept, would be 10 MiB; the session's
	// pooled buffers and the pool's workers take some of the slack.
	if grown > 3*maxBytes {
		t.Fatalf("the heap grew by %d bytes; the cache is bounded by %d", grown, maxBytes)
	}
}
