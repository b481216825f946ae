package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
)

// dialer dials addr over TCP, newline-framed: what Dial does.
func dialer(t *testing.T, addr string) client.DialFunc {
	t.Helper()
	return wrappingDialer(t, addr, func(nc net.Conn) net.Conn { return nc })
}

// wrappingDialer is dialer with each connection wrapped by wrap.
func wrappingDialer(t *testing.T, addr string, wrap func(net.Conn) net.Conn) client.DialFunc {
	t.Helper()
	address, ok := strings.CutPrefix(addr, "tcp://")
	if !ok {
		t.Fatalf("not a tcp address: %s", addr)
	}
	return func(ctx context.Context) (conn.Stream, error) {
		var d net.Dialer
		nc, err := d.DialContext(ctx, "tcp", address)
		if err != nil {
			return nil, err
		}
		return conn.NewByteStream(wrap(nc), nil, nil), nil
	}
}

// waitFor polls cond every few milliseconds for up to 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func TestClient_redialsAfterTheServerRestarts(t *testing.T) {
	srv := startServer(t)
	c, err := client.Dial(context.Background(), srv.addr, &client.Options{
		Redial: client.Backoff{Base: 20 * time.Millisecond, Max: 50 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	echo := func(v int) error {
		var got []int
		err := c.Call(ctx, "echo", []int{v}, &got)
		if err == nil && (len(got) != 1 || got[0] != v) {
			err = errors.New("wrong answer")
		}
		return err
	}
	if err := echo(1); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	waitFor(t, "the client to see its session end", func() bool { return c.Stats().Open == 0 })
	var te *client.TransportError
	if err := echo(2); !errors.As(err, &te) || te.Sent {
		t.Fatalf("while the server is down: %v, want a transport error before sending", err)
	}
	// Same port, new process.
	startServer(t, "-listen", srv.addr)
	if err := echo(3); err != nil {
		t.Fatalf("after the restart: %v", err)
	}
	if st := c.Stats(); st.Dials != 2 || st.DialErrors != 1 || st.Open != 1 {
		t.Fatalf("stats %+v, want 2 dials, 1 refused", st)
	}
}

// countingConn counts the requests for sleep written on a connection, in
// a count shared by the connections of one test.
type countingConn struct {
	net.Conn
	sleeps *atomic.Int32
}

func (c countingConn) Write(p []byte) (int, error) {
	c.sleeps.Add(int32(bytes.Count(p, []byte(`"method":"sleep"`))))
	return c.Conn.Write(p)
}

func TestClient_poolOpensSessionsOnlyForParallelCalls(t *testing.T) {
	srv := startServer(t)
	var sleeps atomic.Int32
	c := client.New(wrappingDialer(t, srv.addr, func(nc net.Conn) net.Conn { return countingConn{nc, &sleeps} }),
		&client.Options{Sessions: 3})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range 5 { // one at a time: one session does
		if err := c.Call(ctx, "echo", []int{i}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if st := c.Stats(); st.Dials != 1 {
		t.Fatalf("serial calls: %d dials, want 1", st.Dials)
	}
	// Three slow calls side by side: each finds the open ones busy.
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			if err := c.Call(ctx, "sleep", map[string]int{"ms": 1000}, nil); err != nil {
				t.Error(err)
			}
		})
		// Let it take its session: once its request is written, it is
		// pending there (the server answers it a second later).
		waitFor(t, fmt.Sprintf("sleep request %d written", i+1), func() bool { return sleeps.Load() == int32(i+1) })
	}
	waitFor(t, "three sessions", func() bool { return c.Stats().Open == 3 })
	// A fourth goes to a session, not to a fourth dial.
	if err := c.Call(ctx, "echo", []int{9}, nil); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if st := c.Stats(); st.Dials != 3 {
		t.Fatalf("stats %+v, want 3 dials", st)
	}
}

func TestClient_batchAgainstTheDemoServer(t *testing.T) {
	srv := startServer(t)
	c, err := client.Dial(context.Background(), srv.addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resps, err := c.Batch(ctx, []client.Request{
		{Method: "sleep", Params: map[string]int{"ms": 50}}, // answered last
		{Method: "echo", Params: []string{"a"}},
		{Method: "update", Params: []int{1}, Notify: true},
		{Method: "subtract", Params: map[string]int{"minuend": 42, "subtrahend": 23}},
		{Method: "no_such_method"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resps) != 5 {
		t.Fatalf("%d responses for 5 requests", len(resps))
	}
	var ms int
	var echo []string
	var diff float64
	var e *codec.Error
	if err := resps[0].Decode(&ms); err != nil || ms != 50 {
		t.Errorf("sleep: %d, %v", ms, err)
	}
	if err := resps[1].Decode(&echo); err != nil || len(echo) != 1 || echo[0] != "a" {
		t.Errorf("echo: %v, %v", echo, err)
	}
	if resps[2].Result != nil || resps[2].Err != nil {
		t.Errorf("notification: %+v", resps[2])
	}
	if err := resps[3].Decode(&diff); err != nil || diff != 19 {
		t.Errorf("subtract: %v, %v", diff, err)
	}
	if !errors.As(resps[4].Err, &e) || e.Code != codec.CodeMethodNotFound {
		t.Errorf("unknown method: %v", resps[4].Err)
	}
	if _, err := c.Batch(ctx, nil); !errors.Is(err, conn.ErrEmptyBatch) {
		t.Errorf("empty batch: %v", err)
	}
}

func TestClient_notifyAndClose(t *testing.T) {
	got := make(chan string, 1)
	srv := newScripted(t, func(r wireRequest) ([]string, bool) {
		if r.ID == nil {
			got <- r.Method + string(r.Params)
		}
		return nil, false
	})
	c, err := client.Dial(context.Background(), srv.addr(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Notify(context.Background(), "note", map[string]int{"n": 1}); err != nil {
		t.Fatal(err)
	}
	if n := <-got; n != `note{"n":1}` {
		t.Fatalf("the server read %s", n)
	}
	// A call waiting when the client closes fails at once.
	done := make(chan error, 1)
	go func() { done <- c.Call(context.Background(), "never_answered", nil, nil) }()
	waitFor(t, "the call to go out", func() bool { return srv.count("never_answered") == 1 })
	c.Close()
	if err := <-done; !errors.Is(err, client.ErrClosed) {
		t.Fatalf("pending call: %v, want ErrClosed", err)
	}
	if err := c.Call(context.Background(), "after", nil, nil); !errors.Is(err, client.ErrClosed) {
		t.Fatalf("call after Close: %v", err)
	}
	if err := c.Notify(context.Background(), "after", nil); !errors.Is(err, client.ErrClosed) {
		t.Fatalf("notify after Close: %v", err)
	}
}

func TestDial_refusesBadAddressesAndAbsentServers(t *testing.T) {
	ctx := context.Background()
	if _, err := client.Dial(ctx, "http://127.0.0.1:1", nil); err == nil {
		t.Error("http:// address accepted")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "tcp://" + ln.Addr().String()
	ln.Close()
	var te *client.TransportError
	if _, err := client.Dial(ctx, addr, nil); !errors.As(err, &te) || te.Sent {
		t.Errorf("nobody listening: %v", err)
	}
}

func TestDial_unixSocket(t *testing.T) {
	addr := "unix://" + t.TempDir() + "/demo.sock"
	srv := startServer(t, "-listen", addr)
	c, err := client.Dial(context.Background(), srv.addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var got []string
	if err := c.Call(context.Background(), "echo", []string{"over unix"}, &got); err != nil || len(got) != 1 || got[0] != "over unix" {
		t.Fatalf("%v, %v", got, err)
	}
}

func TestDialCommand_refusesACommandWithItsOwnStdio(t *testing.T) {
	_, err := client.DialCommand(context.Background(), func() *exec.Cmd {
		cmd := exec.Command(demoserver.Path(t))
		cmd.Stdout = io.Discard
		return cmd
	}, nil)
	if !errors.Is(err, client.ErrCommandStdio) {
		t.Fatalf("%v, want ErrCommandStdio", err)
	}
}

func TestNew_aDialerThatGivesNothing(t *testing.T) {
	c := client.New(func(context.Context) (conn.Stream, error) { return nil, nil }, nil)
	defer c.Close()
	var te *client.TransportError
	if err := c.Call(context.Background(), "m", nil, nil); !errors.As(err, &te) || te.Sent {
		t.Fatalf("%v, want a transport error before sending", err)
	}
}
