package conn_test

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
)

// answeringStream answers the first request written to it, lets the
// session's reader take that response in, and only then fails the write:
// a response delivered before the write that carried its request reports
// an error.
type answeringStream struct {
	in      chan []byte
	back    chan struct{} // closed when the reader comes back after the response
	gave    bool          // reader only: Next returned the response
	closed  chan struct{}
	written bool
}

var errWriteFailed = errors.New("write failed after the bytes left")

func (s *answeringStream) Next() ([]byte, error) {
	if s.gave {
		s.gave = false
		close(s.back) // the response has been delivered
	}
	select {
	case m := <-s.in:
		s.gave = true
		return m, nil
	case <-s.closed:
		return nil, errors.New("closed")
	}
}

func (s *answeringStream) Buffered() bool                        { return len(s.in) > 0 }
func (s *answeringStream) AppendFrame(dst, msg []byte) []byte    { return append(dst, msg...) }
func (s *answeringStream) FrameInPlace(buf []byte, _ int) []byte { return buf }
func (s *answeringStream) Close() error                          { close(s.closed); return nil }

func (s *answeringStream) Write(frames []byte) error {
	if s.written {
		return errWriteFailed
	}
	s.written = true
	msgs, _, err := codec.NewScanner(nil).Scan(frames)
	if err != nil || len(msgs) != 1 {
		return errors.New("unexpected frames: " + string(frames))
	}
	s.in <- codec.AppendResult(nil, msgs[0].ID, []byte(`"delivered"`))
	<-s.back
	return errWriteFailed
}

func TestConn_callReturnsItsResponseEvenIfTheWriteThenFails(t *testing.T) {
	s := &answeringStream{in: make(chan []byte, 1), back: make(chan struct{}), closed: make(chan struct{})}
	c := conn.NewStream(s, nil)
	defer c.Close()
	raw, err := c.CallRaw(context.Background(), "m", nil)
	if err != nil || string(raw) != `"delivered"` {
		t.Fatalf("CallRaw = %s, %v; want the delivered result", raw, err)
	}
}

// TestConn_readerNeverWaitsForASlotWhileItsCallsAreUnanswered: with every
// slot held by a handler that waits on the peer, the reader must go on
// reading to deliver the peer's answer; the request that found no slot is
// refused -32000 instead of waiting (which would wait forever).
func TestConn_readerNeverWaitsForASlotWhileItsCallsAreUnanswered(t *testing.T) {
	started := make(chan struct{})
	server := router.New()
	err := server.Register("ask", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
		close(started)
		var n int
		err := conn.FromContext(ctx).Call(ctx, "question", nil, &n)
		return n, err
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	err = server.Register("other", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		return "ran", nil
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	client := router.New()
	release := make(chan struct{})
	err = client.Register("question", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		<-release // answer only once "other" has been sent
		return 42, nil
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := net.Pipe()
	srv := conn.New(a, &conn.Options{Router: server, MaxInFlight: 1})
	cli := conn.New(b, &conn.Options{Router: client})
	defer srv.Close()
	defer cli.Close()
	answerQuestion := sync.OnceFunc(func() { close(release) })
	defer answerQuestion() // before the Closes, which wait for handlers

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	asked := make(chan error, 1)
	var answer int
	go func() { asked <- cli.Call(ctx, "ask", nil, &answer) }()
	<-started
	err = cli.Call(ctx, "other", nil, nil)
	var e *codec.Error
	if !errors.As(err, &e) || e.Code != codec.CodeOverloaded {
		t.Fatalf("other: %v, want -32000 (refused: the only slot waits on the peer)", err)
	}
	answerQuestion()
	if err := <-asked; err != nil || answer != 42 {
		t.Fatalf("ask = %d, %v; want 42", answer, err)
	}
}

// TestConn_appendCallAppendsTheResultToDst: AppendCall's result follows
// dst's bytes, in dst's array when it has room (no copy of its own), on a
// stream and on an InProcess session alike; an error leaves no result.
func TestConn_appendCallAppendsTheResultToDst(t *testing.T) {
	stream, _ := pair(t, nil, testRouter(t))
	direct, _ := inProcess(t, nil, &conn.Options{Router: testRouter(t)})
	for _, s := range []struct {
		name string
		c    *conn.Conn
	}{{"stream", stream}, {"in-process", direct}} {
		t.Run(s.name, func(t *testing.T) {
			ctx := context.Background()
			room := make([]byte, 0, 64)
			raw, err := s.c.AppendCall(ctx, append(room, "kept:"...), "echo", []int{1, 2})
			if err != nil || string(raw) != "kept:[1,2]" {
				t.Fatalf("AppendCall = %s, %v; want kept:[1,2]", raw, err)
			}
			if &raw[0] != &room[:1][0] {
				t.Error("AppendCall copied the result elsewhere though dst had room")
			}
			small := make([]byte, 0, 2)
			if raw, err = s.c.AppendCall(ctx, small, "echo", []int{3, 4}); err != nil || string(raw) != "[3,4]" {
				t.Fatalf("AppendCall(small dst) = %s, %v; want [3,4]", raw, err)
			}
			var e *codec.Error
			if raw, err = s.c.AppendCall(ctx, room, "fail", nil); !errors.As(err, &e) || raw != nil {
				t.Fatalf("AppendCall(fail) = %q, %v; want nil and the peer's error", raw, err)
			}
		})
	}
}
