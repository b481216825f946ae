package conn_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"strconv"
	"testing"

	"github.com/bytedance/sonic"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

// The echo workload: a small MCP-sized request whose params come back as
// the result.
const echoParams = `{"text":"hello, world","n":42,"tags":["a","b"]}`

func echoRequest(id int) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"echo","params":` + echoParams + "}\n")
}

// echoTail ends every echo response: the params, then the response's brace.
var echoTail = []byte(`"result":` + echoParams + "}\n")

// isEcho checks a response line cheaply, so that the client side of a
// benchmark costs little next to the server it measures.
func isEcho(line []byte) bool { return bytes.HasSuffix(line, echoTail) }

func echoRouter() *router.Router {
	r := router.New()
	r.Register("echo", router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
		return codec.Raw(req.Params), nil
	}), &router.MethodOptions{Inline: true})
	return r
}

// pooledEchoRouter serves echo on the pool.
func pooledEchoRouter() *router.Router {
	r := router.New()
	r.Register("echo", router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
		return codec.Raw(req.Params), nil
	}), nil)
	return r
}

// server is what the benchmarks drive: something serving one end of a pipe.
type server func(b *testing.B, nc net.Conn) (stop func())

func mcpwireServer(b *testing.B, nc net.Conn) func() { return mcpwireEcho(nc, nil) }

// mcpwirePooledServer runs echo on an ants pool instead of inline: the
// cost of the hand-off to a worker and back.
func mcpwirePooledServer(b *testing.B, nc net.Conn) func() { return mcpwirePooledEcho(b, nc, nil) }

// mcpwireSharedServer runs echo off the reader with no Options.Pool: on
// the workers every connection without a pool shares.
func mcpwireSharedServer(b *testing.B, nc net.Conn) func() {
	c := conn.New(nc, &conn.Options{Router: pooledEchoRouter()})
	return func() { c.Close() }
}

// mcpwireEcho serves echo inline with m as Options.Metrics (nil: none).
func mcpwireEcho(nc net.Conn, m conn.Metrics) func() {
	c := conn.New(nc, &conn.Options{Router: echoRouter(), Metrics: m})
	return func() { c.Close() }
}

// mcpwirePooledEcho serves echo on a pool with m as Options.Metrics.
func mcpwirePooledEcho(b *testing.B, nc net.Conn, m conn.Metrics) func() {
	return mcpwirePooledEchoWith(b, nc, &conn.Options{Metrics: m})
}

// mcpwirePooledEchoWith serves echo on a pool of its own with opts.
func mcpwirePooledEchoWith(b *testing.B, nc net.Conn, opts *conn.Options) func() {
	p, err := pool.New(nil)
	if err != nil {
		b.Fatal(err)
	}
	o := *opts
	o.Router, o.Pool = pooledEchoRouter(), p
	c := conn.New(nc, &o)
	return func() {
		c.Close()
		p.Close(context.Background())
	}
}

// minimalServer is the baseline the targets are stated against: bufio,
// sonic.Unmarshal into a struct with raw params, map dispatch, sonic.Marshal,
// flushing when no more input is buffered. It already beats the peer
// libraries by about 2.5×.
func minimalServer(b *testing.B, nc net.Conn) func() {
	type request struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	type response struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result"`
	}
	methods := map[string]func(json.RawMessage) (any, error){
		"echo": func(p json.RawMessage) (any, error) { return p, nil },
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		br := bufio.NewReaderSize(nc, 64<<10)
		bw := bufio.NewWriterSize(nc, 64<<10)
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return
			}
			var req request
			if err := sonic.Unmarshal(line, &req); err != nil {
				b.Error(err)
				return
			}
			res, _ := methods[req.Method](req.Params)
			out, _ := sonic.Marshal(response{JSONRPC: "2.0", ID: req.ID, Result: res})
			bw.Write(out)
			bw.WriteByte('\n')
			if br.Buffered() == 0 {
				if bw.Flush() != nil {
					return
				}
			}
		}
	}()
	return func() { nc.Close(); <-done }
}

// pingPongServer is the floor: it answers each line with a line of the same
// size as the real response, doing no JSON work at all.
func pingPongServer(b *testing.B, nc net.Conn) func() {
	resp := []byte(`{"jsonrpc":"2.0","id":1,"result":` + echoParams + "}\n")
	done := make(chan struct{})
	go func() {
		defer close(done)
		br := bufio.NewReaderSize(nc, 64<<10)
		for {
			if _, err := br.ReadSlice('\n'); err != nil {
				return
			}
			if _, err := nc.Write(resp); err != nil {
				return
			}
		}
	}()
	return func() { nc.Close(); <-done }
}

var servers = []struct {
	name  string
	start server
}{
	{"impl=mcpwire", mcpwireServer},
	{"impl=mcpwire+prometheus", mcpwirePrometheusServer},
	{"impl=mcpwire-pooled", mcpwirePooledServer},
	{"impl=mcpwire-pooled+prometheus", mcpwirePooledPrometheusServer},
	{"impl=mcpwire-shared", mcpwireSharedServer},
	{"impl=minimal", minimalServer},
}

// BenchmarkEchoPipelined streams b.N echo requests over one net.Pipe while
// reading the responses: server throughput with a pipelining peer.
func BenchmarkEchoPipelined(b *testing.B) {
	for _, s := range servers {
		b.Run(s.name, func(b *testing.B) {
			cli, srv := net.Pipe()
			stop := s.start(b, srv)
			defer stop()
			// One block of 256 requests, written again and again.
			var block []byte
			for i := range 256 {
				block = append(block, echoRequest(i)...)
			}
			b.SetBytes(int64(len(block) / 256))
			b.ReportAllocs()
			b.ResetTimer()
			go func() {
				for sent := 0; sent < b.N; sent += 256 {
					n := min(256, b.N-sent)
					end := len(block)
					if n < 256 {
						end = bytes.Index(block, echoRequest(n))
					}
					if _, err := cli.Write(block[:end]); err != nil {
						return
					}
				}
			}()
			br := bufio.NewReaderSize(cli, 64<<10)
			for i := 0; i < b.N; i++ {
				line, err := br.ReadSlice('\n')
				if err != nil || !isEcho(line) {
					b.Fatalf("response %d: %q %v", i, line, err)
				}
			}
			b.StopTimer()
			cli.Close()
		})
	}
}

// BenchmarkEchoRoundTrip has one request outstanding at a time. The
// ping-pong case is the cost of the pipe itself.
func BenchmarkEchoRoundTrip(b *testing.B) {
	all := append(servers[:len(servers):len(servers)], struct {
		name  string
		start server
	}{"impl=pipe-pingpong", pingPongServer})
	for _, s := range all {
		b.Run(s.name, func(b *testing.B) {
			cli, srv := net.Pipe()
			stop := s.start(b, srv)
			defer stop()
			req := echoRequest(1)
			br := bufio.NewReaderSize(cli, 64<<10)
			b.SetBytes(int64(len(req)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cli.Write(req); err != nil {
					b.Fatal(err)
				}
				line, err := br.ReadSlice('\n')
				if err != nil || !isEcho(line) {
					b.Fatalf("%q %v", line, err)
				}
			}
			cli.Close()
		})
	}
}

// BenchmarkEchoBatch sends batches of 100 echo requests; per-element cost
// is ns/op divided by 100.
func BenchmarkEchoBatch(b *testing.B) {
	for _, s := range []struct {
		name  string
		start server
	}{{"impl=mcpwire", mcpwireServer}, {"impl=mcpwire-pooled", mcpwirePooledServer}, {"impl=mcpwire-shared", mcpwireSharedServer}} {
		b.Run("size=100/"+s.name, func(b *testing.B) { echoBatch(b, s.start) })
	}
}

// echoBatch is BenchmarkEchoBatch for one server.
func echoBatch(b *testing.B, start server) {
	cli, srv := net.Pipe()
	stop := start(b, srv)
	defer stop()
	frame := []byte{'['}
	for i := range 100 {
		if i > 0 {
			frame = append(frame, ',')
		}
		frame = append(frame, bytes.TrimSuffix(echoRequest(i), []byte("\n"))...)
	}
	frame = append(frame, ']', '\n')
	want := []byte{'['}
	for i := range 100 {
		if i > 0 {
			want = append(want, ',')
		}
		want = append(want, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,`...)
		want = append(want, echoTail[:len(echoTail)-1]...)
	}
	want = append(want, ']', '\n')
	br := bufio.NewReaderSize(cli, 1<<20)
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for b.Loop() {
		go cli.Write(frame)
		line, err := br.ReadSlice('\n')
		if err != nil || !bytes.Equal(line, want) {
			b.Fatalf("%q, %v", line, err)
		}
	}
	cli.Close()
}

// BenchmarkCall is a client conn calling a server conn in process, one call
// at a time and from parallel goroutines.
func BenchmarkCall(b *testing.B) {
	params := codec.Raw(echoParams)
	setup := func(b *testing.B) *conn.Conn {
		a, s := net.Pipe()
		sc := conn.New(s, &conn.Options{Router: echoRouter()})
		cc := conn.New(a, nil)
		b.Cleanup(func() { cc.Close(); sc.Close() })
		return cc
	}
	b.Run("mode=serial", func(b *testing.B) {
		cc := setup(b)
		b.ReportAllocs()
		for b.Loop() {
			raw, err := cc.CallRaw(context.Background(), "echo", params)
			if err != nil || len(raw) != len(echoParams) {
				b.Fatal(string(raw), err)
			}
		}
	})
	b.Run("mode=parallel", func(b *testing.B) {
		cc := setup(b)
		b.ReportAllocs()
		b.SetParallelism(16)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				raw, err := cc.CallRaw(context.Background(), "echo", params)
				if err != nil || len(raw) != len(echoParams) {
					b.Error(string(raw), err)
					return
				}
			}
		})
	})
}
