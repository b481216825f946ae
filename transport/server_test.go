package transport_test

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

func TestServer_serveNilListenerIsAnError(t *testing.T) {
	if err := transport.NewServer(nil).Serve(nil); !errors.Is(err, transport.ErrNilListener) {
		t.Fatalf("Serve(nil) = %v", err)
	}
}

// TestServer_binderChoosesEachSessionsHandlers: each session gets a router
// of its own, numbered by the binder; OnClose sees the session itself.
func TestServer_binderChoosesEachSessionsHandlers(t *testing.T) {
	var n atomic.Int64
	closed := make(chan *conn.Conn, 2)
	srv := transport.NewServer(conn.BinderFunc(func(_ context.Context, p *conn.Peer) (*conn.Options, error) {
		if p.Transport != "tcp" || p.Addr == "" {
			t.Errorf("peer %+v", p)
		}
		id := n.Add(1)
		r := router.New()
		r.Register("who", router.Func(func(context.Context, struct{}) (int64, error) { return id, nil }), nil)
		return &conn.Options{Router: r, OnClose: func(c *conn.Conn, _ error) { closed <- c }}, nil
	}))
	ln, err := transport.Listen(context.Background(), "tcp://127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()

	ctx := context.Background()
	for want := int64(1); want <= 2; want++ {
		c, err := transport.Dial(ctx, transport.URL(ln), nil)
		if err != nil {
			t.Fatal(err)
		}
		var got int64
		if err := c.Call(ctx, "who", nil, &got); err != nil || got != want {
			t.Fatalf("session %d answered %d, %v", want, got, err)
		}
		if srv.Len() != 1 {
			t.Fatalf("Len = %d with one client", srv.Len())
		}
		var sessions []*conn.Conn
		for s := range srv.Sessions() {
			sessions = append(sessions, s)
		}
		c.Close()
		if s := <-closed; len(sessions) != 1 || s != sessions[0] {
			t.Fatalf("OnClose got %p, sessions %v", s, sessions)
		}
		for srv.Len() != 0 { // untracked just after OnClose
			time.Sleep(time.Millisecond)
		}
	}
}

func TestServer_binderCanRefuseASession(t *testing.T) {
	refused := errors.New("not you")
	srv := transport.NewServer(conn.BinderFunc(func(context.Context, *conn.Peer) (*conn.Options, error) {
		return nil, refused
	}))
	a, b := net.Pipe()
	defer b.Close()
	if _, err := srv.ServeConn(a); !errors.Is(err, refused) {
		t.Fatalf("ServeConn: %v", err)
	}
	if _, err := b.Write([]byte("x")); err == nil {
		t.Fatal("the refused stream is still open")
	}
}

// TestServer_maxConnsStopsAccepting: at the bound the next client waits in
// the backlog and is served once a session ends.
func TestServer_maxConnsStopsAccepting(t *testing.T) {
	srv := transport.NewServer(&conn.Options{Router: adder()})
	srv.MaxConns = 1
	ln, err := transport.Listen(context.Background(), "tcp://127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()
	ctx := context.Background()
	first, err := transport.Dial(ctx, transport.URL(ln), nil)
	if err != nil {
		t.Fatal(err)
	}
	var sum int
	if err := first.Call(ctx, "add", pair{1, 2}, &sum); err != nil {
		t.Fatal(err)
	}
	second, err := transport.Dial(ctx, transport.URL(ln), nil) // connects: the backlog takes it
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if err := second.Call(short, "add", pair{1, 2}, &sum); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a session past MaxConns was served: %v", err)
	}
	first.Close()
	if err := second.Call(ctx, "add", pair{2, 2}, &sum); err != nil || sum != 4 {
		t.Fatalf("served once a slot freed: %d %v", sum, err)
	}
	if _, err := srv.ServeConn(&nopStream{}); !errors.Is(err, transport.ErrTooManyConns) {
		t.Fatalf("ServeConn past MaxConns: %v", err)
	}
}

type nopStream struct{}

func (nopStream) Read([]byte) (int, error)    { select {} }
func (nopStream) Write(p []byte) (int, error) { return len(p), nil }
func (nopStream) Close() error                { return nil }
