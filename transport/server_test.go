package transport_test

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/pipenet"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

func TestServer_serveNilListenerIsAnError(t *testing.T) {
	if err := transport.NewServer(nil).Serve(nil); !errors.Is(err, transport.ErrNilListener) {
		t.Fatalf("Serve(nil) = %v", err)
	}
}

// TestServer_binderChoosesEachSessionsHandlers: each session gets a router
// of its own, numbered by the binder; OnClose sees the session itself. It
// runs in a synctest bubble over in-memory pipes, so synctest.Wait tells
// when the server has untracked a closed session.
func TestServer_binderChoosesEachSessionsHandlers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int64
		closed := make(chan *conn.Conn, 2)
		srv := transport.NewServer(conn.BinderFunc(func(_ context.Context, p *conn.Peer) (*conn.Options, error) {
			if p.Transport != "pipe" || p.Addr == "" {
				t.Errorf("peer %+v", p)
			}
			id := n.Add(1)
			r := router.New()
			r.Register("who", router.Func(func(context.Context, struct{}) (int64, error) { return id, nil }), nil)
			return &conn.Options{Router: r, OnClose: func(c *conn.Conn, _ error) { closed <- c }}, nil
		}))
		ln := pipenet.Listen()
		go srv.Serve(ln)
		defer srv.Close()

		ctx := context.Background()
		for want := int64(1); want <= 2; want++ {
			c := conn.New(dialPipe(t, ln), nil)
			var got int64
			if err := c.Call(ctx, "who", nil, &got); err != nil || got != want {
				t.Fatalf("session %d answered %d, %v", want, got, err)
			}
			synctest.Wait() // the session may answer before Serve has tracked it
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
			synctest.Wait() // the server untracks a session just after OnClose
			if srv.Len() != 0 {
				t.Fatalf("Len = %d after the session ended", srv.Len())
			}
		}
	})
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
// the backlog and is served once a session ends; ServeConn is refused. It
// runs in a synctest bubble over in-memory pipes, so synctest.Wait tells
// when the server has done all it would do.
func TestServer_maxConnsStopsAccepting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := transport.NewServer(&conn.Options{Router: adder()})
		srv.MaxConns = 1
		ln := pipenet.Listen()
		go srv.Serve(ln)
		defer srv.Close()
		ctx := context.Background()
		first := conn.New(dialPipe(t, ln), nil)
		var sum int
		if err := first.Call(ctx, "add", pair{1, 2}, &sum); err != nil {
			t.Fatal(err)
		}
		accepted := make(chan *conn.Conn)
		go func() { accepted <- conn.New(dialPipe(t, ln), nil) }() // dial returns once accepted
		synctest.Wait()
		select {
		case c := <-accepted:
			c.Close()
			t.Fatal("a session past MaxConns was accepted")
		default:
		}
		if n := srv.Len(); n != 1 {
			t.Fatalf("Len = %d at MaxConns 1", n)
		}
		first.Close()
		second := <-accepted
		defer second.Close()
		if err := second.Call(ctx, "add", pair{2, 2}, &sum); err != nil || sum != 4 {
			t.Fatalf("served once a slot freed: %d %v", sum, err)
		}
		if _, err := srv.ServeConn(&nopStream{}); !errors.Is(err, transport.ErrTooManyConns) {
			t.Fatalf("ServeConn past MaxConns: %v", err)
		}
	})
}

type nopStream struct{}

func (nopStream) Read([]byte) (int, error)    { select {} }
func (nopStream) Write(p []byte) (int, error) { return len(p), nil }
func (nopStream) Close() error                { return nil }

// dialPipe connects a new client to l and returns its end, once l's
// server has accepted the other.
func dialPipe(t *testing.T, l *pipenet.Listener) net.Conn {
	t.Helper()
	c, err := l.Dial(context.Background(), "pipe", "")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A session knows the peer its Binder was told of (conn.Conn.Peer), even
// when the Binder's options do not say.
func TestServer_sessionsKnowTheirPeer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := router.New()
		r.Register("peer", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
			p := conn.FromContext(ctx).Peer()
			return []string{p.Transport, p.Addr}, nil
		}), nil)
		var bound conn.Peer
		srv := transport.NewServer(conn.BinderFunc(func(_ context.Context, p *conn.Peer) (*conn.Options, error) {
			bound = *p
			return &conn.Options{Router: r}, nil
		}))
		ln := pipenet.Listen()
		go srv.Serve(ln)
		defer srv.Close()

		c := conn.New(dialPipe(t, ln), nil)
		defer c.Close()
		var got []string
		if err := c.Call(context.Background(), "peer", nil, &got); err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0] != "pipe" || got[1] == "" || got[0] != bound.Transport || got[1] != bound.Addr {
			t.Errorf("the session's peer %q, bound with %+v", got, bound)
		}
	})
}
