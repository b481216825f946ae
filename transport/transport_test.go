package transport_test

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// ants starts its default pool's goroutines when imported: they are not ours.
// A stopped fasthttp.Server's worker cleaner sleeps out its 10 s before it
// notices (FastHTTPHandler's tests): ignored.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent(),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2"))
}

type pair struct{ A, B int }

func adder() *router.Router {
	r := router.New()
	r.Register("add", router.Func(func(_ context.Context, p pair) (int, error) { return p.A + p.B, nil }), nil)
	return r
}

func TestServer_servesTCPAndUnixInBothFramings(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s.sock")
	for _, addr := range []string{"tcp://127.0.0.1:0", "tcp://[::1]:0", "unix://" + sock} {
		for _, f := range []codec.Framing{codec.Newline, codec.Header} {
			t.Run(addr+"/"+f.String(), func(t *testing.T) {
				ctx := context.Background()
				ln, err := transport.Listen(ctx, addr)
				if err != nil {
					t.Skipf("cannot listen on %s: %v", addr, err) // no IPv6 loopback here
				}
				srv := transport.NewServer(&conn.Options{Router: adder(), Framing: f})
				served := make(chan error, 1)
				go func() { served <- srv.Serve(ln) }()

				c, err := transport.Dial(ctx, transport.URL(ln), &conn.Options{Framing: f})
				if err != nil {
					t.Fatal(err)
				}
				var sum int
				if err := c.Call(ctx, "add", pair{2, 3}, &sum); err != nil || sum != 5 {
					t.Fatalf("add: %d %v", sum, err)
				}
				if err := c.Call(ctx, "add", []int{40, 2}, &sum); err != nil || sum != 42 {
					t.Fatalf("add by position: %d %v", sum, err)
				}
				c.Close()
				if err := srv.Shutdown(ctx); err != nil {
					t.Fatal(err)
				}
				if err := <-served; !errors.Is(err, transport.ErrServerClosed) {
					t.Fatalf("Serve: %v", err)
				}
			})
		}
	}
}

func TestServer_shutdownLetsCallsInFlightFinish(t *testing.T) {
	ctx := context.Background()
	ln, err := transport.Listen(ctx, "tcp://127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := adder()
	started := make(chan struct{})
	r.Register("slow_started", router.Func(func(ctx context.Context, ms []int) (int, error) {
		close(started)
		select {
		case <-time.After(time.Duration(ms[0]) * time.Millisecond):
			return ms[0], nil
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}), nil)
	srv := transport.NewServer(&conn.Options{Router: r})
	go srv.Serve(ln)
	c, err := transport.Dial(ctx, transport.URL(ln), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res := make(chan error, 1)
	go func() {
		var ms int
		err := c.Call(ctx, "slow_started", []int{100}, &ms)
		if err == nil && ms != 100 {
			err = errors.New("wrong result")
		}
		res <- err
	}()
	<-started // the call is in flight: Shutdown must let it finish
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	if err := <-res; err != nil {
		t.Fatalf("call in flight during shutdown: %v", err)
	}
	if _, err := transport.Dial(ctx, transport.URL(ln), nil); err == nil {
		t.Fatal("still accepting after Shutdown")
	}
}

func TestStdio_servesOverPipes(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := transport.NewServer(&conn.Options{Router: adder()})
	sc, err := srv.ServeConn(&transport.Stdio{R: inR, W: outW})
	if err != nil {
		t.Fatal(err)
	}
	// The client side of the same pipes.
	cc := conn.New(&transport.Stdio{R: outR, W: inW}, nil)
	var sum int
	if err := cc.Call(context.Background(), "add", pair{1, 1}, &sum); err != nil || sum != 2 {
		t.Fatalf("%d %v", sum, err)
	}
	cc.Close()
	<-sc.Done()
	srv.Close()
}

func TestParseAddr_refusesOtherSchemes(t *testing.T) {
	for _, a := range []string{"", "127.0.0.1:80", "http://x", "tcp://", "udp://127.0.0.1:1"} {
		if _, _, err := transport.ParseAddr(a); !errors.Is(err, transport.ErrBadAddress) {
			t.Errorf("%q: %v", a, err)
		}
	}
}
