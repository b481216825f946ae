package conn

import (
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/codec"
)

// writes is a Stream that records each Write.
type writes struct {
	mu     sync.Mutex
	frames []string
}

func (w *writes) Next() ([]byte, error)                { select {} }
func (w *writes) Buffered() bool                       { return false }
func (w *writes) AppendFrame(dst, msg []byte) []byte   { return codec.Newline.AppendFrame(dst, msg) }
func (w *writes) FrameInPlace(b []byte, at int) []byte { return codec.Newline.FrameInPlace(b, at) }
func (w *writes) Close() error                         { return nil }

func (w *writes) Write(frames []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.frames = append(w.frames, string(frames))
	return nil
}

func (w *writes) got() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.frames...)
}

// Answers produced while more tasks are queued go out in one write, made
// by the last queued task as it starts; with none queued an answer goes
// at once.
func TestWriter_sendLaterHoldsAnswersForTheTasksQueued(t *testing.T) {
	s := new(writes)
	w := newWriter(s, defaultMaxPending, 0)
	w.lateFlush = func() { t.Error("the timer flushed: the last queued task should have") }
	var queued atomic.Int32
	queued.Store(1)
	for _, m := range []string{"1", "2", "3"} {
		if err := w.sendLater([]byte(m), &queued); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.got(); len(got) != 0 {
		t.Fatalf("wrote %q while a task was queued, want nothing yet", got)
	}
	queued.Store(0) // the last queued task starts: taskStarted
	if err := w.flushLater(); err != nil {
		t.Fatal(err)
	}
	if err := w.sendLater([]byte("4"), &queued); err != nil {
		t.Fatal(err)
	}
	want := []string{"1\n2\n3\n", "4\n"}
	if got := s.got(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("writes %q, want %q", got, want)
	}
	if err := w.flushLater(); err != nil || len(s.got()) != 2 {
		t.Fatalf("flushLater with nothing held: err %v, writes %q", err, s.got())
	}
	w.laterTimer.Stop()
}

// Held answers go out after laterLimit when the tasks queued are slow to
// start, and at once once they fill heldFlushBytes.
func TestWriter_sendLaterIsBoundedInTimeAndSize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := new(writes)
		w := newWriter(s, defaultMaxPending, 0)
		w.lateFlush = func() { _ = w.flushLater() }
		var queued atomic.Int32
		queued.Store(1) // and never started
		start := time.Now()
		if err := w.sendLater([]byte("held"), &queued); err != nil {
			t.Fatal(err)
		}
		time.Sleep(laterLimit - time.Microsecond)
		if got := s.got(); len(got) != 0 {
			t.Fatalf("wrote %q before laterLimit", got)
		}
		time.Sleep(time.Microsecond)
		synctest.Wait()
		if got := s.got(); len(got) != 1 || got[0] != "held\n" {
			t.Fatalf("writes %q %v after the send, want the held answer at %v", got, time.Since(start), laterLimit)
		}
		big := make([]byte, heldFlushBytes)
		for i := range big {
			big[i] = 'x'
		}
		if err := w.sendLater(big, &queued); err != nil {
			t.Fatal(err)
		}
		if got := s.got(); len(got) != 2 {
			t.Fatalf("%d writes, want a held answer of heldFlushBytes written at once", len(got))
		}
		w.laterTimer.Stop()
	})
}
