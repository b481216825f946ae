package conn_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
)

// inProcess starts two sessions on the ends of conn.InProcess.
func inProcess(t *testing.T, oa, ob *conn.Options) (*conn.Conn, *conn.Conn) {
	t.Helper()
	a, b := conn.InProcess()
	ca, cb := conn.NewStream(a, oa), conn.NewStream(b, ob)
	t.Cleanup(func() {
		ca.Close()
		cb.Close()
	})
	return ca, cb
}

func TestInProcess_callsRunOnTheCallersGoroutineAndBatchesOnThePool(t *testing.T) {
	p := new(countingPool)
	client, _ := inProcess(t, nil, &conn.Options{Router: testRouter(t), Pool: p})
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Go(func() {
			for i := range 50 {
				want := strconv.Itoa(g*1000 + i)
				var got []string
				if err := client.Call(ctx, "echo_async", []string{want}, &got); err != nil || len(got) != 1 || got[0] != want {
					errs <- fmt.Errorf("want %s, got %v %v", want, got, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := p.n.Load(); n != 0 {
		t.Fatalf("%d calls were handed to the pool; each should run on its caller", n)
	}

	calls := []conn.BatchCall{
		{Method: "echo_async", Params: []int{1}},
		{Method: "echo_async", Params: []int{2}},
	}
	if err := client.CallBatch(ctx, calls); err != nil {
		t.Fatal(err)
	}
	for i, c := range calls {
		if want := "[" + strconv.Itoa(i+1) + "]"; c.Err != nil || string(c.Result) != want {
			t.Fatalf("batch call %d: %s %v, want %s", i, c.Result, c.Err, want)
		}
	}
	if n := p.n.Load(); n != 2 {
		t.Fatalf("a batch of two made %d hand-offs, want 2", n)
	}
}

func TestInProcess_whatAHandlerSendsArrivesInOrderBeforeItsAnswer(t *testing.T) {
	server := router.New()
	server.Register("work", router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		c := conn.FromContext(ctx)
		for i := range 3 {
			if err := c.Notify(ctx, "progress", []int{i}); err != nil {
				return nil, err
			}
		}
		var name string
		if err := c.Call(ctx, "whoami", nil, &name); err != nil {
			return nil, err
		}
		return "done for " + name, nil
	}), nil)
	client := router.New()
	var mu sync.Mutex
	var seen []string
	client.Register("progress", router.Func(func(_ context.Context, p []int) (any, error) {
		mu.Lock()
		seen = append(seen, "progress "+strconv.Itoa(p[0]))
		mu.Unlock()
		return nil, nil
	}), &router.MethodOptions{Inline: true}) // in order, as a stream's reader serves them
	client.Register("whoami", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		mu.Lock()
		seen = append(seen, "whoami")
		mu.Unlock()
		return "client", nil
	}), nil)
	cc, _ := inProcess(t, &conn.Options{Router: client}, &conn.Options{Router: server})

	var got string
	if err := cc.Call(context.Background(), "work", nil, &got); err != nil || got != "done for client" {
		t.Fatalf("got %q, %v", got, err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"progress 0", "progress 1", "progress 2", "whoami"}
	if len(seen) != len(want) {
		t.Fatalf("the client saw %v, want %v", seen, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Fatalf("the client saw %v, want %v", seen, want)
		}
	}
}

func TestInProcess_cancellingTheCallCancelsTheHandler(t *testing.T) {
	started := make(chan string, 1)
	stopped := make(chan error, 1)
	r := router.New()
	r.Register("wait", router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		started <- string(req.ID)
		<-ctx.Done()
		stopped <- ctx.Err()
		return nil, ctx.Err()
	}), nil)
	client, _ := inProcess(t, nil, &conn.Options{Router: r})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- client.Call(ctx, "wait", nil, nil) }()
	id := <-started
	cancel()
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Fatalf("the handler's context ended with %v", err)
	}
	err := <-errc
	var ce *conn.CanceledCallError
	if !errors.As(err, &ce) || !errors.Is(err, context.Canceled) || string(ce.ID) != id {
		t.Fatalf("Call: %v (the request's id was %s)", err, id)
	}
	// A context already done sends nothing.
	if err := client.Call(ctx, "wait", nil, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("call with a done context: %v", err)
	}
}

func TestInProcess_handlerTimeoutAnswersTheCaller(t *testing.T) {
	client, _ := inProcess(t, nil, &conn.Options{Router: testRouter(t), HandlerTimeout: 20 * time.Millisecond})
	err := client.Call(context.Background(), "sleep", []int{5000}, nil)
	var e *codec.Error
	if !errors.As(err, &e) || e.Code != codec.CodeRequestTimeout {
		t.Fatalf("want the timeout's answer, got %v", err)
	}
}

func TestInProcess_aSessionWaitsForItsPeerToStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := conn.InProcess()
		client := conn.NewStream(b, nil)
		defer client.Close()
		errc := make(chan error, 1)
		var got []int
		go func() { errc <- client.Call(context.Background(), "echo", []int{3}, &got) }()
		synctest.Wait() // the call has failed, or waits for a server
		select {
		case err := <-errc:
			t.Fatalf("a call with no server yet returned: %v", err)
		default:
		}
		server := conn.NewStream(a, &conn.Options{Router: testRouter(t)})
		defer server.Close()
		if err := <-errc; err != nil || len(got) != 1 || got[0] != 3 {
			t.Fatalf("got %v, %v", got, err)
		}

		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		_, lone := conn.InProcess()
		c := conn.NewStream(lone, nil)
		defer c.Close()
		if err := c.Call(ctx, "echo", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a call with no peer: %v", err)
		}
	})
}

func TestInProcess_closingOneEndEndsBoth(t *testing.T) {
	hung := make(chan struct{}, 1)
	r := router.New()
	r.Register("hang", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
		hung <- struct{}{}
		<-ctx.Done()
		return "too late", nil
	}), nil)
	client, server := inProcess(t, nil, &conn.Options{Router: r})
	errc := make(chan error, 1)
	go func() { errc <- client.Call(context.Background(), "hang", nil, nil) }()
	<-hung
	server.Close()
	if err := <-errc; !errors.Is(err, conn.ErrClosed) {
		t.Fatalf("a call whose server closed: %v", err)
	}
	select {
	case <-client.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the client's session did not end with its peer")
	}
	if err := client.Call(context.Background(), "hang", nil, nil); !errors.Is(err, conn.ErrClosed) {
		t.Fatalf("a call after the end: %v", err)
	}
}

// A handler's goroutine calls the client while the handler's own call is
// unanswered, and the client's handler waits for that call to be answered:
// the client's handler must not run under the body's lock, as it would if
// it ran on the sending goroutine.
func TestInProcess_aPeersHandlerNeverHoldsBackTheAnswer(t *testing.T) {
	asked, answered := make(chan struct{}), make(chan struct{})
	client := router.New()
	client.Register("ask", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		close(asked)
		<-answered // the outer call's answer
		return "yes", nil
	}), nil)
	server := router.New()
	late := make(chan error, 1)
	server.Register("start", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
		go func() {
			var s string
			late <- conn.FromContext(ctx).Call(context.WithoutCancel(ctx), "ask", nil, &s)
		}()
		<-asked
		return "started", nil
	}), nil)
	cc, _ := inProcess(t, &conn.Options{Router: client}, &conn.Options{Router: server})

	done := make(chan error, 1)
	go func() { done <- cc.Call(context.Background(), "start", nil, nil) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call's answer waited for the client's handler")
	}
	close(answered)
	if err := <-late; err != nil {
		t.Fatal(err)
	}
}
