package conn_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
)

// TestConn_ledRequestsAllAnswered pipelines many requests for the pool on
// one connection, some of whose handlers block long enough to be deposed
// from the reader: every request is answered exactly once, with its own
// params, on both kinds of stream that lead (a framed byte stream, Pipe).
func TestConn_ledRequestsAllAnswered(t *testing.T) {
	const n = 20000
	for _, stream := range []string{"bytes", "pipe"} {
		t.Run("stream="+stream, func(t *testing.T) {
			var runs atomic.Int64
			r := router.New()
			r.Register("echo", router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
				if runs.Add(1)%997 == 0 {
					time.Sleep(300 * time.Microsecond) // deposed: the reader goes on without it
				}
				return codec.Raw(req.Params), nil
			}), nil)
			p := startPool(t, nil)
			send, recv, closeAll := ledStream(t, stream, &conn.Options{Router: r, Pool: p})
			defer closeAll()
			go func() {
				var block []byte
				for i := range n {
					block = append(block, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"echo","params":[`+strconv.Itoa(i)+`]}`+"\n"...)
					if i%64 == 63 || i == n-1 {
						if send(block) != nil {
							return
						}
						block = block[:0]
					}
				}
			}()
			seen := make([]bool, n)
			for range n {
				msg, err := recv()
				if err != nil {
					t.Fatalf("after %d answers: %v", countTrue(seen), err)
				}
				var m struct {
					ID     int   `json:"id"`
					Result []int `json:"result"`
				}
				if err := json.Unmarshal(msg, &m); err != nil || m.ID < 0 || m.ID >= n || len(m.Result) != 1 || m.Result[0] != m.ID || seen[m.ID] {
					t.Fatalf("answer %q: %v (seen before: %v)", msg, err, m.ID >= 0 && m.ID < n && seen[m.ID])
				}
				seen[m.ID] = true
			}
		})
	}
}

func countTrue(s []bool) int {
	n := 0
	for _, b := range s {
		if b {
			n++
		}
	}
	return n
}

// ledStream serves opts on a stream of the kind named and returns how the
// peer sends lines (newline-separated requests), receives one answer, and
// ends it all.
func ledStream(t *testing.T, kind string, opts *conn.Options) (send func([]byte) error, recv func() ([]byte, error), closeAll func()) {
	t.Helper()
	if kind == "pipe" {
		a, b := conn.Pipe()
		c := conn.NewStream(conn.NewMessageStream(a, nil), opts)
		send = func(lines []byte) error {
			for _, l := range bytes.Split(bytes.TrimSuffix(lines, []byte("\n")), []byte("\n")) {
				if err := b.WriteMessage(l); err != nil {
					return err
				}
			}
			return nil
		}
		return send, b.ReadMessage, func() { b.Close(); c.Close() }
	}
	a, b := net.Pipe()
	c := conn.New(a, opts)
	br := bufio.NewReaderSize(b, 64<<10)
	send = func(lines []byte) error { _, err := b.Write(lines); return err }
	recv = func() ([]byte, error) { return br.ReadSlice('\n') }
	return send, recv, func() { b.Close(); c.Close() }
}

// A request for the pool that comes alone in its frame is run by the
// reader, with no hand-off; a batch's elements still fan out to the pool.
// A handler that blocks is deposed: the requests behind it are answered
// while it runs, and its own answer comes when it returns. Its method's
// requests then go to the pool for 5ms; the first after that is led
// again, and led quickly, the method is led from then on.
func TestConn_leadRunsOnTheReaderAndDeposesABlockingHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		r := router.New()
		echo := func(_ context.Context, req *router.Request) (any, error) { return codec.Raw(req.Params), nil }
		r.Register("echo", router.HandlerFunc(echo), nil)
		r.Register("block", router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
			<-gate
			return echo(ctx, req)
		}), nil)
		var hands countingPool
		a, b := conn.Pipe()
		c := conn.NewStream(conn.NewMessageStream(a, nil), &conn.Options{Router: r, Pool: &hands})
		defer c.Close()
		defer b.Close()
		call := func(msg string) string {
			t.Helper()
			if err := b.WriteMessage([]byte(msg)); err != nil {
				t.Fatal(err)
			}
			got, err := b.ReadMessage()
			if err != nil {
				t.Fatal(err)
			}
			return string(got)
		}
		const ans = `{"jsonrpc":"2.0","id":%d,"result":[%d]}`
		if got, want := call(`{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`), fmt.Sprintf(ans, 1, 1); got != want || hands.n.Load() != 0 {
			t.Fatalf("got %s, %d hand-offs; want %s, none", got, hands.n.Load(), want)
		}
		batch := call(`[{"jsonrpc":"2.0","id":2,"method":"echo","params":[2]},{"jsonrpc":"2.0","id":3,"method":"echo","params":[3]}]`)
		if batch != "["+fmt.Sprintf(ans, 2, 2)+","+fmt.Sprintf(ans, 3, 3)+"]" || hands.n.Load() != 2 {
			t.Fatalf("batch: %s, %d hand-offs; want both elements on the pool", batch, hands.n.Load())
		}

		start := time.Now()
		if err := b.WriteMessage([]byte(`{"jsonrpc":"2.0","id":4,"method":"block","params":[4]}`)); err != nil {
			t.Fatal(err)
		}
		if got, want := call(`{"jsonrpc":"2.0","id":5,"method":"echo","params":[5]}`), fmt.Sprintf(ans, 5, 5); got != want {
			t.Fatalf("behind a blocked handler: got %s, want %s", got, want)
		}
		if d := time.Since(start); d < 50*time.Microsecond || d > 100*time.Microsecond {
			t.Errorf("the reader was taken over after %v, want 50–100µs", d)
		}
		close(gate)
		if got, want := readMessage(t, b), fmt.Sprintf(ans, 4, 4); got != want {
			t.Fatalf("the deposed handler answered %s, want %s", got, want)
		}
		if hands.n.Load() != 2 {
			t.Fatalf("%d hand-offs, want still 2", hands.n.Load())
		}

		blocks := func(from, n int) {
			t.Helper()
			for id := from; id < from+n; id++ {
				if got, want := call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"block","params":[%d]}`, id, id)), fmt.Sprintf(ans, id, id); got != want {
					t.Fatalf("got %s, want %s", got, want)
				}
			}
		}
		blocks(10, 5)
		if n := hands.n.Load() - 2; n != 5 {
			t.Fatalf("%d of the slow method's 5 requests handed off, want all", n)
		}
		time.Sleep(6 * time.Millisecond)
		blocks(20, 5)
		if n := hands.n.Load() - 2; n != 5 {
			t.Fatalf("%d of the slow method's requests handed off after the probe, want still 5", n)
		}
	})
}

func readMessage(t *testing.T, mc conn.MessageConn) string {
	t.Helper()
	got, err := mc.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	return string(got)
}

// Shutdown waits for a deposed handler as for one on the pool: its answer
// is written before the stream closes, and Done waits for it.
func TestConn_shutdownWaitsForADeposedHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		r := router.New()
		r.Register("block", router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
			<-gate
			return codec.Raw(req.Params), nil
		}), nil)
		r.Register("echo", router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
			return codec.Raw(req.Params), nil
		}), nil)
		a, b := conn.Pipe()
		c := conn.NewStream(conn.NewMessageStream(a, nil), &conn.Options{Router: r})
		defer b.Close()
		for _, msg := range []string{`{"jsonrpc":"2.0","id":1,"method":"block","params":[1]}`, `{"jsonrpc":"2.0","id":2,"method":"echo","params":[2]}`} {
			if err := b.WriteMessage([]byte(msg)); err != nil {
				t.Fatal(err)
			}
		}
		if got := readMessage(t, b); got != `{"jsonrpc":"2.0","id":2,"result":[2]}` {
			t.Fatalf("behind the blocked handler: %s", got)
		}
		shut := make(chan error, 1)
		go func() { shut <- c.Shutdown(context.Background()) }()
		synctest.Wait()
		select {
		case err := <-shut:
			t.Fatalf("Shutdown returned %v while the deposed handler ran", err)
		default:
		}
		close(gate)
		if got := readMessage(t, b); got != `{"jsonrpc":"2.0","id":1,"result":[1]}` {
			t.Fatalf("the deposed handler answered %s", got)
		}
		if err := <-shut; err != nil {
			t.Fatal(err)
		}
		<-c.Done()
	})
}
