package streamable

import (
	"errors"
	"io"
	"sync"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
)

// inbox is where the goroutines of an HTTP client transport put the
// messages they receive, for the session's reader to take, until the
// transport is closed or fails. Safe for concurrent use.
type inbox struct {
	in     chan []byte
	done   chan struct{} // closed by shut: the transport is closed
	failed chan struct{} // closed by fail; err says why
	err    error
	fail1  sync.Once

	mu       sync.Mutex
	callErrs []*conn.CallError // each announced by a nil message in in
}

func newInbox() inbox {
	return inbox{in: make(chan []byte, 64), done: make(chan struct{}), failed: make(chan struct{})}
}

// next returns the next message; what was delivered before the transport
// failed is taken first. It returns io.EOF once the transport is closed.
func (b *inbox) next() ([]byte, error) {
	select {
	case m := <-b.in:
		return b.took(m)
	case <-b.failed:
		select {
		case m := <-b.in:
			return b.took(m)
		default:
			return nil, b.err
		}
	case <-b.done:
		return nil, io.EOF
	}
}

// took returns what next returns for m, taken from in: m, or for nil the
// first call error queued (failCall).
func (b *inbox) took(m []byte) ([]byte, error) {
	if m != nil {
		return m, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.callErrs[0]
	b.callErrs[0] = nil
	b.callErrs = b.callErrs[1:]
	return nil, e
}

// failCall ends the call id (as sent), for which no answer will come:
// with an error response made here when err is a JSON-RPC error, else
// with err itself (a *transport.HTTPStatusError, say), as a
// *conn.CallError next returns. False once the transport has ended.
func (b *inbox) failCall(id []byte, err error) bool {
	if e, ok := errors.AsType[*codec.Error](err); ok {
		return b.deliver(codec.AppendError(nil, id, e))
	}
	b.mu.Lock()
	b.callErrs = append(b.callErrs, &conn.CallError{ID: append([]byte(nil), id...), Err: err})
	b.mu.Unlock()
	return b.deliver(nil)
}

// deliver hands msg to next; false once the transport has ended.
func (b *inbox) deliver(msg []byte) bool {
	select {
	case b.in <- msg:
		return true
	case <-b.done:
		return false
	case <-b.failed:
		return false
	}
}

// ended returns why nothing more can be sent: ErrClosedTransport, the
// failure, or nil while the transport lasts.
func (b *inbox) ended() error {
	select {
	case <-b.done:
		return ErrClosedTransport
	case <-b.failed:
		return b.err
	default:
		return nil
	}
}

// fail ends the transport with err, once: next returns it. then, if set,
// runs first.
func (b *inbox) fail(err error, then func()) {
	b.fail1.Do(func() {
		b.err = err
		if then != nil {
			then()
		}
		close(b.failed)
	})
}

// shut closes the transport: next returns io.EOF. Called once, by the
// transport's Close.
func (b *inbox) shut() { close(b.done) }
