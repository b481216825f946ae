package router_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

func BenchmarkLookup(b *testing.B) {
	for _, n := range []int{8, 128} {
		b.Run("methods="+strconv.Itoa(n), func(b *testing.B) {
			r := router.New()
			names := make([][]byte, n)
			for i := range names {
				name := "tools/method" + strconv.Itoa(i)
				names[i] = []byte(name)
				_ = r.Register(name, constHandler(name), nil)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				e, ok := r.Lookup(names[i%n])
				if !ok || e == nil {
					b.Fatal("miss")
				}
				i++
			}
		})
	}
}

func BenchmarkLookupParallel(b *testing.B) {
	r := router.New()
	names := make([][]byte, 128)
	for i := range names {
		name := "tools/method" + strconv.Itoa(i)
		names[i] = []byte(name)
		_ = r.Register(name, constHandler(name), nil)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, ok := r.Lookup(names[i%len(names)]); !ok {
				b.Fatal("miss")
			}
			i++
		}
	})
}

func BenchmarkFunc(b *testing.B) {
	for _, bc := range []struct {
		name, params string
		want         subtractParams
	}{
		{"by=name", `{"minuend":42,"subtrahend":23}`, subtractParams{42, 23}},
		{"by=position", `[42,23]`, subtractParams{42, 23}},
		// A required member decodes to zero: its presence is checked by
		// walking the params' names.
		{"by=name/zero", `{"minuend":42,"subtrahend":0}`, subtractParams{42, 0}},
	} {
		h := router.Func(func(_ context.Context, p subtractParams) (struct{}, error) {
			if p != bc.want {
				return struct{}{}, errBench
			}
			return struct{}{}, nil
		})
		b.Run(bc.name, func(b *testing.B) {
			req := &router.Request{Method: "subtract", ID: []byte("1"), Params: []byte(bc.params)}
			ctx := context.Background()
			b.SetBytes(int64(len(bc.params)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h.Handle(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var errBench = benchError("wrong params")

type benchError string

func (e benchError) Error() string { return string(e) }

// BenchmarkFuncInvalid measures the answer to params that do not fit:
// the -32602 error naming the value at fault, near the start or after
// many valid elements.
func BenchmarkFuncInvalid(b *testing.B) {
	type polygon struct {
		Name   string  `json:"name"`
		Points []point `json:"points"`
	}
	many := `{"name":"p","points":[` + strings.Repeat(`{"x":1,"y":2},`, 100) + `{"x":1,"y":"2"}]}`
	for _, bc := range []struct {
		name, params, field string
	}{
		{"at=first", `{"name":1,"points":[]}`, "name"},
		{"at=element100", many, "points[100].y"},
	} {
		h := router.Func(func(_ context.Context, p polygon) (struct{}, error) { return struct{}{}, nil })
		b.Run(bc.name, func(b *testing.B) {
			req := &router.Request{Method: "area", ID: []byte("1"), Params: []byte(bc.params)}
			ctx := context.Background()
			b.SetBytes(int64(len(bc.params)))
			b.ReportAllocs()
			for b.Loop() {
				_, err := h.Handle(ctx, req)
				var e *codec.Error
				if !errors.As(err, &e) || e.Data.(map[string]any)["field"] != bc.field {
					b.Fatalf("got %v", err)
				}
			}
		})
	}
}
