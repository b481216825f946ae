package cache_test

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpwire/mcpwire/cache"
	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
)

// A cached method on a session: the second call, its params spelled
// differently, is answered from the stored bytes; an invalidation (the
// list changed) makes the next call run the handler again.
func Example() {
	c := cache.New(&cache.Options{MaxEntries: 1000, MaxBytes: 8 << 20})
	runs := 0
	r := router.New()
	err := r.Register("tools/list", router.Func(func(_ context.Context, p struct {
		Cursor string `json:"cursor"`
	}) ([]string, error) {
		runs++
		return []string{"add", "echo"}, nil
	}), &router.MethodOptions{Cache: c.Method(time.Minute)})
	if err != nil {
		panic(err)
	}

	a, b := conn.Pipe()
	server := conn.NewStream(conn.NewMessageStream(a, nil), &conn.Options{Router: r})
	client := conn.NewStream(conn.NewMessageStream(b, nil), nil)
	defer server.Close()
	defer client.Close()

	ctx := context.Background()
	for _, params := range []string{`{"cursor":""}`, `{ "cursor" : "" }`} {
		res, err := client.CallRaw(ctx, "tools/list", codec.Raw(params))
		fmt.Println(string(res), err)
	}
	fmt.Printf("runs %d, hits %d, misses %d, entries %d\n", runs, c.Hits(), c.Misses(), c.Len())

	c.Invalidate("tools/list")
	client.CallRaw(ctx, "tools/list", codec.Raw(`{"cursor":""}`))
	fmt.Printf("runs %d after the invalidation\n", runs)
	// Output:
	// ["add","echo"] <nil>
	// ["add","echo"] <nil>
	// runs 1, hits 1, misses 1, entries 1
	// runs 2 after the invalidation
}

// Do runs the fill once and stores its result; Lookup finds it under any
// spelling of the same params.
func ExampleMethod_Do() {
	c := cache.New(nil)
	m := c.Method(0) // no TTL: until evicted or invalidated
	fill := func() ([]byte, error) { return []byte(`{"sum":3}`), nil }
	res, err := m.Do(context.Background(), "add", []byte(`{"a":1,"b":2}`), fill)
	fmt.Println(string(res), err)

	res, ok := m.Lookup("add", []byte(`{ "b": 2, "a": 1 }`))
	fmt.Println(string(res), ok)
	_, ok = m.Lookup("add", []byte(`{"a":2,"b":1}`))
	fmt.Println(ok)
	// Output:
	// {"sum":3} <nil>
	// {"sum":3} true
	// false
}
