package conn_test

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
)

// refusingConn is a MessageConn whose transport learns, instead of an
// answer, why none will come for the first request it is given; the
// others it answers with an empty result.
type refusingConn struct {
	why  error
	in   chan any // []byte or error, for ReadMessage
	sent int
}

func (r *refusingConn) ReadMessage() ([]byte, error) {
	switch v := (<-r.in).(type) {
	case []byte:
		return v, nil
	case error:
		return nil, v
	}
	return nil, io.EOF
}

func (r *refusingConn) WriteMessage(msg []byte) error {
	msgs, _, err := codec.NewScanner(nil).Scan(msg)
	if err != nil {
		return err
	}
	id := append([]byte(nil), msgs[0].ID...)
	if r.sent++; r.sent == 1 {
		r.in <- &conn.CallError{ID: id, Err: r.why}
	} else {
		r.in <- append(append([]byte(`{"jsonrpc":"2.0","id":`), id...), `,"result":{}}`...)
	}
	return nil
}

func (r *refusingConn) Close() error {
	close(r.in)
	return nil
}

// A *conn.CallError from the stream fails that one call with its Err, as
// it is; the session reads on and the next call is answered.
func TestConn_callErrorFailsOneCall(t *testing.T) {
	why := errors.New("the transport's own reason")
	c := conn.NewStream(conn.NewMessageStream(&refusingConn{why: why, in: make(chan any, 4)}, nil), nil)
	defer c.Close()
	if err := c.Call(context.Background(), "m", nil, nil); err != why {
		t.Fatalf("first call: %v, want %v itself", err, why)
	}
	if err := c.Call(context.Background(), "m", nil, nil); err != nil {
		t.Fatalf("second call: %v", err)
	}
}
