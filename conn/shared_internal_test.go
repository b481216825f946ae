package conn

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"testing"

	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

type taskFunc func()

func (f taskFunc) Run() { f() }

// A connection without a Pool runs the requests it hands off, one after
// another, on the same few workers of the shared pool, and gives the pool
// back when it ends: the last connection's end closes it.
func TestConn_withoutPoolSharesOnePool(t *testing.T) {
	r := stringEchoRouter(t, nil)
	a, b := net.Pipe()
	c := New(a, &Options{Router: r})
	defer b.Close()
	br := bufio.NewReader(b)
	call := func(i int) {
		t.Helper()
		if _, err := fmt.Fprintf(b, `{"jsonrpc":"2.0","id":%d,"method":"echo","params":["x"]}`+"\n", i); err != nil {
			t.Fatal(err)
		}
		line, err := br.ReadString('\n')
		if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":["x"]}`+"\n", i); err != nil || line != want {
			t.Fatalf("answer %q, %v; want %q", line, err, want)
		}
	}
	call(0)
	p := c.shared.Load()
	if p == nil {
		t.Fatal("a connection without a Pool handed off, not to the shared pool")
	}
	before := p.Running()
	for i := 1; i <= 100; i++ {
		call(i)
	}
	if n := p.Running() - before; n > 2 {
		t.Errorf("%d workers started for 100 requests one after another", n)
	}
	alone := defaultPool.Acquire() == p // no other connection holds another one
	defaultPool.Release(p)
	c.Close()
	if err := p.Submit(taskFunc(func() {})); alone && err != pool.ErrClosed {
		t.Errorf("the last connection ended; Submit on its shared pool = %v, want ErrClosed", err)
	}
}

// A session whose handlers all run inline never takes the shared pool:
// a session per HTTP POST does not make one for nothing.
func TestConn_inlineOnlyTakesNoPool(t *testing.T) {
	c := NewStream(nil, &Options{Router: stringEchoRouter(t, &router.MethodOptions{Inline: true})})
	defer c.Close()
	serveEchoBody(t, c)
	if c.shared.Load() != nil {
		t.Error("an inline request took the shared pool")
	}
	if c.HoldSharedPool() != nil {
		t.Error("a session that took no shared pool holds one")
	}
}

// Sessions alone in the process, one after another (a session per HTTP
// POST), while a server holds the shared pool open: they all run on that
// one pool, on the same workers, starting no goroutine per session; once
// the hold is let go, the pool closes.
func TestConn_heldSharedPoolServesLoneSessionsOnOneWorker(t *testing.T) {
	r := stringEchoRouter(t, nil)
	first := NewStream(nil, &Options{Router: r})
	serveEchoBody(t, first)
	p := first.shared.Load()
	release := first.HoldSharedPool()
	if p == nil || release == nil {
		t.Fatal("the first session took no shared pool to hold")
	}
	first.Close()
	first.Wait()
	serve := func() {
		t.Helper()
		c := NewStream(nil, &Options{Router: r})
		serveEchoBody(t, c)
		if c.shared.Load() != p {
			t.Fatal("a lone session did not run on the held pool")
		}
		c.Close()
		c.Wait()
	}
	serve()
	before := p.Running()
	for range 100 {
		serve()
	}
	// A worker may not be back in the pool when the next session hands
	// off (the answer is out before the worker returns): a second one then
	// takes turns with it.
	if n := p.Running() - before; n > 1 {
		t.Errorf("%d workers started for 100 lone sessions one after another", n)
	}
	alone := defaultPool.Acquire() == p // no other user holds another pool
	defaultPool.Release(p)
	release()
	release() // a second call does nothing
	if err := p.Submit(taskFunc(func() {})); alone && err != pool.ErrClosed {
		t.Errorf("the hold was let go; Submit on the shared pool = %v, want ErrClosed", err)
	}
	if alone && first.HoldSharedPool() != nil {
		t.Error("a session that ended holds the pool it had let go")
	}
}

// stringEchoRouter serves echo (its params as its result) with mo.
func stringEchoRouter(t *testing.T, mo *router.MethodOptions) *router.Router {
	t.Helper()
	r := router.New()
	if err := r.Register("echo", router.Func(func(_ context.Context, p []string) ([]string, error) { return p, nil }), mo); err != nil {
		t.Fatal(err)
	}
	return r
}

// serveEchoBody serves c one echo request by ServeBody and checks the
// answer.
func serveEchoBody(t *testing.T, c *Conn) {
	t.Helper()
	var got []byte
	if err := c.ServeBody(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":["x"]}`), func(msg []byte) { got = append(got, msg...) }); err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":1,"result":["x"]}`; string(got) != want {
		t.Fatalf("answer %q, want %q", got, want)
	}
}
