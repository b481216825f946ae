package fuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
)

// stream is a connection end that reads a fixed input and records output.
type stream struct {
	r   io.Reader
	mu  sync.Mutex
	out bytes.Buffer
}

func (s *stream) Read(p []byte) (int, error) { return s.r.Read(p) }
func (s *stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.Write(p)
}
func (s *stream) Close() error { return nil }

func fuzzRouter() *router.Router {
	r := router.New()
	echo := router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
		return codec.Raw(req.Params), nil
	})
	r.Register("echo", echo, &router.MethodOptions{Inline: true})
	r.Register("echo_async", echo, nil)
	r.Register("panic", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		panic("fuzz")
	}), nil)
	r.Register("fail", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		return nil, errors.New("failed")
	}), &router.MethodOptions{Inline: true})
	r.Register("sum", router.Func(func(_ context.Context, xs []float64) (float64, error) {
		var s float64
		for _, x := range xs {
			s += x
		}
		return s, nil
	}), nil)
	return r
}

// expected returns how many response frames a stream must produce and the
// multiset of ids the single responses and batch elements must carry
// ("null" where the id could not be read), using the codec as the oracle
// for what each frame is.
func expected(input []byte, f codec.Framing, limits *codec.Limits, jsonrpc1 bool) (frames int, ids map[string]int) {
	ids = map[string]int{}
	fr := codec.NewFramer(bytes.NewReader(input), f, limits)
	sc := codec.NewScanner(limits)
	sc.SetJSONRPC1(jsonrpc1)
	for {
		frame, err := fr.Next()
		var fe *codec.FrameError
		if errors.As(err, &fe) {
			frames++
			ids["null"]++
			continue
		}
		if err != nil {
			return
		}
		frames += expectFrame(sc, frame, ids)
	}
}

// expectFrame adds the ids the answer to one frame must carry to ids (a
// JSON-RPC 1.0 answer's as "1.0 <id>"), and returns how many answer
// frames it gets: 0 or 1.
func expectFrame(sc *codec.Scanner, frame []byte, ids map[string]int) int {
	msgs, batch, err := sc.Scan(frame)
	if err != nil {
		ids["null"]++
		return 1
	}
	answered := 0
	for i := range msgs {
		m := &msgs[i]
		switch m.Kind {
		case codec.KindRequest, codec.KindInvalid:
			answered++
			id := "null"
			if m.ID != nil {
				id = string(m.ID)
			}
			if m.JSONRPC1 {
				id = v1Key + id
			}
			ids[id]++
		}
	}
	if answered > 0 && (batch || len(msgs) == 1) {
		return 1
	}
	return 0
}

// bodies serves every frame of input whole through ServeBody, on a session
// without a stream, and returns the answers as one newline-framed output,
// with what it must hold.
func bodies(t *testing.T, input []byte, f codec.Framing, opts *conn.Options) (out []byte, frames int, ids map[string]int) {
	c := conn.NewStream(nil, opts)
	defer c.Close()
	ids = map[string]int{}
	fr := codec.NewFramer(bytes.NewReader(input), f, opts.Limits)
	sc := codec.NewScanner(opts.Limits)
	sc.SetJSONRPC1(opts.JSONRPC1)
	for {
		frame, err := fr.Next()
		var fe *codec.FrameError
		if errors.As(err, &fe) {
			continue
		}
		if err != nil {
			return out, frames, ids
		}
		frames += expectFrame(sc, frame, ids)
		replies := 0
		if err := c.ServeBody(context.Background(), frame, func(msg []byte) {
			replies++
			out = codec.AppendFrame(out, codec.Newline, msg)
		}); err != nil {
			t.Fatal(err)
		}
		if replies > 1 {
			t.Fatalf("ServeBody replied %d times to %q", replies, frame)
		}
	}
}

// sameAnswers checks output against what it must hold.
func sameAnswers(t *testing.T, input, out []byte, f codec.Framing, wantFrames int, wantIDs map[string]int) {
	gotFrames, gotIDs := got(t, out, f)
	if gotFrames != wantFrames {
		t.Fatalf("%d response frames, want %d\ninput %q\noutput %q", gotFrames, wantFrames, input, out)
	}
	for id, n := range wantIDs {
		if gotIDs[id] != n {
			t.Fatalf("id %s answered %d times, want %d\ninput %q\noutput %q", id, gotIDs[id], n, input, out)
		}
	}
	for id, n := range gotIDs {
		if wantIDs[id] != n {
			t.Fatalf("id %s answered %d times, want %d\ninput %q\noutput %q", id, n, wantIDs[id], input, out)
		}
	}
}

// got splits the output into frames and counts the ids of every response.
func got(t *testing.T, out []byte, f codec.Framing) (frames int, ids map[string]int) {
	ids = map[string]int{}
	fr := codec.NewFramer(bytes.NewReader(out), f, nil)
	for {
		frame, err := fr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("output does not frame: %v", err)
		}
		frames++
		var one map[string]json.RawMessage
		var many []map[string]json.RawMessage
		if err := json.Unmarshal(frame, &one); err == nil {
			many = append(many, one)
		} else if err := json.Unmarshal(frame, &many); err != nil || len(many) == 0 {
			t.Fatalf("output frame is not a response or a non-empty array: %q", frame)
		}
		for _, r := range many {
			result, hasResult := r["result"]
			e, hasError := r["error"]
			id, ok := r["id"]
			if !ok {
				t.Fatalf("response without id: %q", frame)
			}
			version, v1 := r["jsonrpc"]
			switch {
			case !v1 && len(many) == 1 && hasResult && hasError && len(r) == 3 && (string(result) == "null" || string(e) == "null"):
				ids[v1Key+string(id)]++ // a JSON-RPC 1.0 answer
			case !v1 || hasResult == hasError || string(version) != `"2.0"`:
				t.Fatalf("malformed response %q", frame)
			default:
				ids[string(id)]++
			}
		}
	}
}

// v1Key marks the ids of JSON-RPC 1.0 answers.
const v1Key = "1.0 "

// FuzzConn feeds any stream to a connection, and each of its frames whole
// to ServeBody, with JSON-RPC 1.0 objects accepted (jsonrpc1) or not: it
// never panics, every request gets exactly one response carrying its id
// byte for byte, in the request's own version, and notifications get none.
func FuzzConn(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s, false, false)
		f.Add(s, false, true)
	}
	limits := &codec.Limits{MaxFrameBytes: 4096, MaxDepth: 64, MaxBatch: 50}
	f.Fuzz(func(t *testing.T, input []byte, header, jsonrpc1 bool) {
		framing := codec.Newline
		if header {
			framing = codec.Header
		}
		opts := &conn.Options{Router: fuzzRouter(), Framing: framing, Limits: limits, MaxInFlight: 8, JSONRPC1: jsonrpc1}
		s := &stream{r: bytes.NewReader(input)}
		c := conn.New(s, opts)
		select {
		case <-c.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("connection did not end after its input ended")
		}
		s.mu.Lock()
		out := append([]byte(nil), s.out.Bytes()...)
		s.mu.Unlock()
		wantFrames, wantIDs := expected(input, framing, limits, jsonrpc1)
		sameAnswers(t, input, out, framing, wantFrames, wantIDs)

		out, wantFrames, wantIDs = bodies(t, input, framing, opts)
		sameAnswers(t, input, out, codec.Newline, wantFrames, wantIDs)
	})
}

// seeds are the specification's vectors as one stream each, plus a stream
// of all of them.
func seeds(f *testing.F) [][]byte {
	data, err := os.ReadFile("../testdata/jsonrpc/spec-examples.json")
	if err != nil {
		f.Fatal(err)
	}
	var vs []struct {
		Request string `json:"request"`
	}
	if err := json.Unmarshal(data, &vs); err != nil {
		f.Fatal(err)
	}
	var all []byte
	var out [][]byte
	for _, v := range vs {
		out = append(out, []byte(v.Request+"\n"))
		all = append(all, v.Request+"\n"...)
	}
	out = append(out, all,
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"echo_async","params":[1]}`+"\n"+`{"jsonrpc":"2.0","id":1,"method":"panic"}`+"\n"),
		[]byte(`[{"jsonrpc":"2.0","id":"a","method":"sum","params":[1,2]},{"jsonrpc":"2.0","method":"echo"},{"jsonrpc":"2.0","id":"b","method":"fail"}]`),
		// JSON-RPC 1.0 objects beside 2.0 ones (taken as 1.0 with the option).
		[]byte(`{"method":"sum","params":[1,2],"id":1}`+"\n"+`{"jsonrpc":"2.0","id":1,"method":"echo_async","params":[1]}`+"\n"+
			`{"jsonrpc":"1.0","method":"echo_async","params":[],"id":"x"}`+"\n"+`{"method":"echo","params":[1],"id":null}`+"\n"+
			`{"method":"nope","params":[],"id":2.50}`+"\n"+`{"method":"echo","params":{"a":1},"id":3}`+"\n"+
			`{"method":"panic","params":[{"__jsonclass__":[]}],"id":4}`+"\n"+`{"method":"fail","params":[],"id":5}`+"\n"+
			`{"result":1,"error":null,"id":6}`+"\n"+`[{"method":"echo","params":[],"id":7}]`+"\n"))
	return out
}
