package cache_test

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/cache"
	"github.com/mcpwire/mcpwire/router"
)

// The benchmark workload: a listing, the kind of answer MCP clients ask
// for again and again (tools/list), with params in an object.
type tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Schema      map[string]any `json:"inputSchema"`
}

func listing(n int) []tool {
	tools := make([]tool, n)
	for i := range tools {
		tools[i] = tool{
			Name:        "tool" + strconv.Itoa(i),
			Description: "does thing number " + strconv.Itoa(i) + " to its arguments",
			Schema:      map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "number"}}},
		}
	}
	return tools
}

const listParams = `{"cursor":"page-1","filter":{"tag":"all"}}`

func listRequest(id int) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/list","params":` + listParams + "}\n")
}

// listRouter serves tools/list (a listing of n tools), cached by c or not.
func listRouter(c *cache.Cache, n int) *router.Router {
	tools := listing(n)
	var opts *router.MethodOptions
	if c != nil {
		opts = &router.MethodOptions{Cache: c.Method(0)}
	}
	r := router.New()
	r.Register("tools/list", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		return map[string]any{"tools": tools}, nil
	}), opts)
	return r
}

// session serves r on a pool over a net.Pipe and returns a round trip:
// write one request, read its answer line (valid until the next one).
func session(tb testing.TB, r *router.Router) func(req []byte) []byte {
	p := serve(tb, r, newPool(tb, 0))
	return func(req []byte) []byte {
		if _, err := p.nc.Write(req); err != nil {
			tb.Fatal(err)
		}
		line, err := p.br.ReadSlice('\n')
		if err != nil {
			tb.Fatal(err)
		}
		return line
	}
}

// passThrough is a middleware that only calls the next handler: what a
// hit costs under middleware, beyond the middleware's own work.
func passThrough(next router.Handler) router.Handler {
	return router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		return next.Handle(ctx, req)
	})
}

// BenchmarkSession compares a cached method answered from the cache with
// the same method uncached, end to end: the client's write, the session,
// the handler or the cache, the encoding, the client's read.
func BenchmarkSession(b *testing.B) {
	for _, size := range []struct {
		name  string
		tools int
	}{{"small", 1}, {"medium", 16}, {"large", 256}} {
		for _, mode := range []string{"hit", "hit-middleware", "uncached"} {
			b.Run("result="+size.name+"/"+mode, func(b *testing.B) {
				var c *cache.Cache
				if mode != "uncached" {
					c = cache.New(nil)
				}
				r := listRouter(c, size.tools)
				if mode == "hit-middleware" {
					r.Use(passThrough) // hits are answered through it
				}
				roundTrip := session(b, r)
				req := listRequest(12345)
				want := bytes.Clone(roundTrip(req)) // fills the cache
				b.SetBytes(int64(len(want)))
				b.ReportAllocs()
				for b.Loop() {
					if got := roundTrip(req); len(got) != len(want) {
						b.Fatalf("answer %.80s…", got)
					}
				}
				if c != nil && c.Misses() != 1 {
					b.Fatalf("%d misses: the loop was not answered from the cache", c.Misses())
				}
			})
		}
	}
}

// BenchmarkLookup is the hit path alone: canonical key, hash, shard read.
func BenchmarkLookup(b *testing.B) {
	for _, size := range []int{1, 16, 256} {
		b.Run("members="+strconv.Itoa(size), func(b *testing.B) {
			members := make([]string, size)
			for i := range members {
				members[len(members)-1-i] = `"k` + strconv.Itoa(i) + `":` + strconv.Itoa(i) // not in order
			}
			params := []byte("{" + strings.Join(members, ",") + "}")
			c := cache.New(nil)
			m := c.Method(0)
			m.Do(context.Background(), "m", params, func() ([]byte, error) { return []byte(`"r"`), nil })
			b.SetBytes(int64(len(params)))
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := m.Lookup("m", params); !ok {
					b.Fatal("miss")
				}
			}
		})
	}
}

// BenchmarkLookupParallel is hits on many keys from every core.
func BenchmarkLookupParallel(b *testing.B) {
	c := cache.New(nil)
	m := c.Method(0)
	keys := make([][]byte, 1024)
	for i := range keys {
		keys[i] = []byte(`{"id":` + strconv.Itoa(i) + `,"kind":"x"}`)
		m.Do(context.Background(), "m", keys[i], func() ([]byte, error) { return []byte(`"r"`), nil })
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, ok := m.Lookup("m", keys[i%len(keys)]); !ok {
				b.Error("miss")
				return
			}
			i++
		}
	})
}
