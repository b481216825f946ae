package codec

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// chunkWaiter is a ReadWaiter over chunks, one per Read; each WaitRead
// notes how much buffer its framer holds while it waits.
type chunkWaiter struct {
	chunks []string
	fr     interface{ bufCap() int }
	held   []int // bufCap at each wait
	err    error // WaitRead's, once the chunks are read
}

func (w *chunkWaiter) WaitRead() error {
	w.held = append(w.held, w.fr.bufCap())
	if len(w.chunks) == 0 && w.err != nil {
		return w.err
	}
	return nil
}

func (w *chunkWaiter) Read(p []byte) (int, error) {
	if len(w.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, w.chunks[0])
	if w.chunks[0] = w.chunks[0][n:]; w.chunks[0] == "" {
		w.chunks = w.chunks[1:]
	}
	return n, nil
}

// TestFramer_waiterHoldsNothingIdle: over a ReadWaiter, a framer holds no
// buffer whenever it waits for a stream that brought little, reads every
// frame whole, waits not at all while reads fill its buffer, and ends with
// the waiter's error as with a read's.
func TestFramer_waiterHoldsNothingIdle(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"text":"hello, world"}}`
	for _, f := range []Framing{Newline, Header} {
		frame := string(AppendFrame(nil, f, []byte(msg)))
		big := strings.Repeat(frame, 1000) // more than a buffer of waitFrameBuf
		w := &chunkWaiter{chunks: []string{frame, frame + frame[:10], frame[10:], big, frame}, err: errors.New("closed")}
		fr := NewFramer(w, f, nil)
		w.fr = fr.(interface{ bufCap() int })
		for i := range 1004 {
			if got, err := fr.Next(); err != nil || string(got) != msg {
				t.Fatalf("%s, frame %d: %q, %v", f, i, got, err)
			}
		}
		if _, err := fr.Next(); err == nil || err.Error() != "closed" {
			t.Fatalf("%s: after the last frame: %v, want the waiter's error", f, err)
		}
		for k, c := range w.held {
			if c != 0 {
				t.Errorf("%s: wait %d with a buffer of %d bytes, want none", f, k, c)
			}
		}
		// A wait before each of the small chunks' frames, not between the
		// big chunk's reads (they fill the buffer), and before the end.
		if len(w.held) < 4 || len(w.held) > 8 {
			t.Errorf("%s: %d waits, want one per idle point (4 to 8)", f, len(w.held))
		}
	}
}

// TestWaitingReader_notAWaiter: readers that are neither ReadWaiters nor
// sockets get none; a ReadWaiter is its own.
func TestWaitingReader_notAWaiter(t *testing.T) {
	if w := WaitingReader(strings.NewReader("x")); w != nil {
		t.Errorf("strings.Reader: %T", w)
	}
	if w := WaitingReader(iotest.OneByteReader(strings.NewReader("x"))); w != nil {
		t.Errorf("OneByteReader: %T", w)
	}
	cw := &chunkWaiter{}
	if w := WaitingReader(cw); w != cw {
		t.Errorf("a ReadWaiter: %v", w)
	}
}
