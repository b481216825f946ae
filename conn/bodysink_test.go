package conn_test

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
)

// recorder collects what a BodySink receives, in order.
type recorder struct {
	mu   sync.Mutex
	msgs []string
	seen chan string
}

func newRecorder() *recorder { return &recorder{seen: make(chan string, 16)} }

func (r *recorder) sink(kind string) func([]byte) {
	return func(msg []byte) {
		s := kind + " " + string(msg)
		r.mu.Lock()
		r.msgs = append(r.msgs, s)
		r.mu.Unlock()
		r.seen <- s
	}
}

func (r *recorder) next(t *testing.T) string {
	t.Helper()
	select {
	case s := <-r.seen:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("nothing came")
		return ""
	}
}

// A pooled handler serving a body sends a notification and makes a call
// with its context: both reach the body's Related sink, in order, not the
// session's stream; the call's response, served as a second body,
// completes the call; the answer comes last.
func TestServeBodySink_relatedMessagesFollowTheirBody(t *testing.T) {
	r := router.New()
	r.Register("ask", router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		c := conn.FromContext(ctx)
		if err := c.Notify(ctx, "progress", map[string]int{"n": 1}); err != nil {
			return nil, err
		}
		sub, cancel := context.WithTimeout(ctx, 10*time.Second) // derived contexts are followed too
		defer cancel()
		var answer string
		if err := c.Call(sub, "question", []int{42}, &answer); err != nil {
			return nil, err
		}
		return "got " + answer, nil
	}), nil)
	streamed := newOutbox()
	c := conn.NewStream(conn.NewMessageStream(streamed, nil), &conn.Options{Router: r})
	defer c.Close()

	rec := newRecorder()
	served := make(chan error, 1)
	go func() {
		served <- c.ServeBodySink(context.Background(), []byte(`{"jsonrpc":"2.0","id":"a","method":"ask"}`),
			conn.BodySink{Answer: rec.sink("answer"), Related: rec.sink("related")})
	}()
	if got, want := rec.next(t), `related {"jsonrpc":"2.0","method":"progress","params":{"n":1}}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	if got, want := rec.next(t), `related {"jsonrpc":"2.0","id":1,"method":"question","params":[42]}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	// The client's response comes in a body of its own: nothing to answer.
	var none []string
	if err := c.ServeBody(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"result":"yes"}`), func(m []byte) { none = append(none, string(m)) }); err != nil || none != nil {
		t.Fatalf("the response body answered %v, %v", none, err)
	}
	if got, want := rec.next(t), `answer {"jsonrpc":"2.0","id":"a","result":"got yes"}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-streamed.out:
		t.Fatalf("the session's stream carried %s", m)
	case <-time.After(20 * time.Millisecond):
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.msgs) != 3 {
		t.Fatalf("the sink received %q", rec.msgs)
	}
}

// Every element of a batch relates to the batch's body; the array comes
// after all of them.
func TestServeBodySink_batchElementsRelateToTheBatch(t *testing.T) {
	r := router.New()
	r.Register("note", router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		return nil, conn.FromContext(ctx).Notify(ctx, "noted", codec.Raw(req.Params))
	}), nil)
	c := conn.NewStream(nil, &conn.Options{Router: r})
	defer c.Close()
	rec := newRecorder()
	err := c.ServeBodySink(context.Background(), []byte(`[{"jsonrpc":"2.0","id":1,"method":"note","params":[1]},{"jsonrpc":"2.0","id":2,"method":"note","params":[2]}]`),
		conn.BodySink{Answer: rec.sink("answer"), Related: rec.sink("related")})
	if err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	got := strings.Join(rec.msgs, "\n")
	if len(rec.msgs) != 3 || !strings.HasPrefix(rec.msgs[2], `answer [{"jsonrpc":"2.0","id":1,"result":null},{"jsonrpc":"2.0","id":2,"result":null}]`) ||
		!strings.Contains(got, `related {"jsonrpc":"2.0","method":"noted","params":[1]}`) ||
		!strings.Contains(got, `related {"jsonrpc":"2.0","method":"noted","params":[2]}`) {
		t.Fatalf("the sink received:\n%s", got)
	}
}

// What is sent once the body is settled goes to the session's stream: a
// notification's handler runs after its body was settled, and a handler's
// goroutine may outlive its answer. Inline handlers never relate.
func TestServeBodySink_afterSettlementAndInlineGoToTheStream(t *testing.T) {
	r := router.New()
	release := make(chan struct{})
	r.Register("later", router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		<-release
		return nil, conn.FromContext(ctx).Notify(context.WithoutCancel(ctx), "late", nil)
	}), nil)
	r.Register("inline", router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		return nil, conn.FromContext(ctx).Notify(ctx, "inline", nil)
	}), &router.MethodOptions{Inline: true})
	streamed := newOutbox()
	c := conn.NewStream(conn.NewMessageStream(streamed, nil), &conn.Options{Router: r})
	defer c.Close()
	rec := newRecorder()
	sink := conn.BodySink{Answer: rec.sink("answer"), Related: rec.sink("related")}

	if err := c.ServeBodySink(context.Background(), []byte(`{"jsonrpc":"2.0","method":"later"}`), sink); err != nil {
		t.Fatal(err)
	}
	close(release) // the notification's body is settled: its handler now sends
	if err := c.ServeBodySink(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"inline"}`), sink); err != nil {
		t.Fatal(err)
	}
	if got := rec.next(t); got != `answer {"jsonrpc":"2.0","id":1,"result":null}` {
		t.Fatalf("got %s", got)
	}
	want := map[string]bool{`{"jsonrpc":"2.0","method":"late"}`: true, `{"jsonrpc":"2.0","method":"inline"}`: true}
	for range 2 {
		select {
		case m := <-streamed.out:
			if !want[string(m)] {
				t.Fatalf("the stream carried %s", m)
			}
			delete(want, string(m))
		case <-time.After(10 * time.Second):
			t.Fatalf("the stream did not carry %v", want)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.msgs) != 1 {
		t.Fatalf("the sink received %q", rec.msgs)
	}
}

// A body given up on (its ctx done) takes no related message: they go to
// the session's stream.
func TestServeBodySink_givingUpSendsRelatedToTheStream(t *testing.T) {
	r := router.New()
	release := make(chan struct{})
	r.Register("slow", router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		<-release
		return "done", conn.FromContext(ctx).Notify(ctx, "progress", nil)
	}), nil)
	streamed := newOutbox()
	c := conn.NewStream(conn.NewMessageStream(streamed, nil), &conn.Options{Router: r})
	defer c.Close()
	rec := newRecorder()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := c.ServeBodySink(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"slow"}`),
		conn.BodySink{Answer: rec.sink("answer"), Related: rec.sink("related")}); err != context.DeadlineExceeded {
		t.Fatalf("got %v", err)
	}
	close(release)
	select {
	case m := <-streamed.out:
		if string(m) != `{"jsonrpc":"2.0","method":"progress"}` {
			t.Fatalf("the stream carried %s", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream carried nothing")
	}
	select {
	case s := <-rec.seen:
		t.Fatalf("the sink received %s after ServeBodySink returned", s)
	case <-time.After(20 * time.Millisecond):
	}
}

// outbox is a message connection that reads nothing (every message of the
// peer comes as a body) and hands what the session sends on its stream to
// out.
type outbox struct {
	out  chan []byte
	done chan struct{}
	once sync.Once
}

func newOutbox() *outbox { return &outbox{out: make(chan []byte, 16), done: make(chan struct{})} }

func (o *outbox) ReadMessage() ([]byte, error) {
	<-o.done
	return nil, io.EOF
}

func (o *outbox) WriteMessage(msg []byte) error {
	select {
	case o.out <- append([]byte(nil), msg...):
		return nil
	case <-o.done:
		return io.ErrClosedPipe
	}
}

func (o *outbox) Close() error {
	o.once.Do(func() { close(o.done) })
	return nil
}
