package conn_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
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
