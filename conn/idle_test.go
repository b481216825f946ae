package conn_test

import (
	"bufio"
	"context"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

// goPool runs every task on a goroutine of its own, which has exited once
// wait returns (but for its last steps): an executor whose goroutines a
// test can count out.
type goPool struct{ wg sync.WaitGroup }

func (p *goPool) Submit(t pool.Task) error {
	p.wg.Add(1)
	go func() { defer p.wg.Done(); t.Run() }()
	return nil
}

// An idle connection holds one goroutine, its reader, whatever it served
// before: an inline request, a pooled one under a HandlerTimeout (a timer
// per request, never a goroutine), and a batch of both.
func TestConn_idleHoldsOnlyItsReader(t *testing.T) {
	r := router.New()
	echo := router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) { return codec.Raw(req.Params), nil })
	r.Register("inline", echo, &router.MethodOptions{Inline: true})
	r.Register("pooled", echo, nil)
	var exec goPool
	opts := &conn.Options{Router: r, Pool: &exec, HandlerTimeout: time.Minute}
	const n = 20
	var clients []net.Conn
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	before := runtime.NumGoroutine()
	for range n {
		cli, srv := net.Pipe()
		clients = append(clients, cli)
		c := conn.New(srv, opts)
		defer c.Close()
		br := bufio.NewReader(cli)
		for _, msg := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"inline","params":[1]}`,
			`{"jsonrpc":"2.0","id":2,"method":"pooled","params":[2]}`,
			`[{"jsonrpc":"2.0","id":3,"method":"inline","params":[3]},{"jsonrpc":"2.0","id":4,"method":"pooled","params":[4]}]`,
		} {
			if _, err := cli.Write([]byte(msg + "\n")); err != nil {
				t.Fatal(err)
			}
			if line, err := br.ReadString('\n'); err != nil || line[0] != msg[0] {
				t.Fatalf("%s: answer %q, %v", msg, line, err)
			}
		}
	}
	exec.wg.Wait()
	// A goroutine that has returned may still be counted for a moment:
	// wait for the count to settle, within a bound.
	deadline := time.Now().Add(5 * time.Second)
	for {
		extra := runtime.NumGoroutine() - before
		if extra <= n {
			t.Logf("%d idle connections hold %d goroutines", n, extra)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d idle connections hold %d goroutines, want at most %d (one each)", n, extra, n)
		}
		time.Sleep(time.Millisecond)
	}
}
