package streamable

import (
	"io"
	"sync"
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
}

func newInbox() inbox {
	return inbox{in: make(chan []byte, 64), done: make(chan struct{}), failed: make(chan struct{})}
}

// next returns the next message; what was delivered before the transport
// failed is taken first. It returns io.EOF once the transport is closed.
func (b *inbox) next() ([]byte, error) {
	select {
	case m := <-b.in:
		return m, nil
	case <-b.failed:
		select {
		case m := <-b.in:
			return m, nil
		default:
			return nil, b.err
		}
	case <-b.done:
		return nil, io.EOF
	}
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
