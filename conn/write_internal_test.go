package conn

import (
	"bytes"
	"strconv"
	"strings"
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
	// In a bubble: the timer must not fire because the machine is slow.
	synctest.Test(t, func(t *testing.T) {
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
	})
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

// The reader's held output is written as it is when nothing else is
// pending: no buffer changes hands, the writer grows none of its own.
func TestWriter_sendHeldWritesTheReadersBufferItself(t *testing.T) {
	s := new(writes)
	w := newWriter(s, defaultMaxPending, 0)
	held := make([]byte, 0, 64)
	held = append(held, "1\n2\n"...)
	back, err := w.sendHeld(held)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.got(); len(got) != 1 || got[0] != "1\n2\n" {
		t.Fatalf("writes %q", got)
	}
	if len(back) != 0 || cap(back) != 64 || &back[:1][0] != &held[:1][0] {
		t.Errorf("the reader got back len %d cap %d, want its own buffer, empty", len(back), cap(back))
	}
	if w.pending != nil || w.spare != nil {
		t.Errorf("the writer holds buffers of %d and %d bytes, want none", cap(w.pending), cap(w.spare))
	}
}

// Once the reader waits, the writer keeps no output buffer over idleKeep;
// the next burst starts from one given back.
func TestWriter_idleGivesLargeBuffersBack(t *testing.T) {
	s := new(writes)
	w := newWriter(s, defaultMaxPending, 0)
	big := bytes.Repeat([]byte{'x'}, 8*idleKeep)
	for range 2 {
		if err := w.send(big); err != nil {
			t.Fatal(err)
		}
	}
	if cap(w.spare) <= idleKeep {
		t.Fatalf("spare of %d bytes after a large write: the test needs one over %d", cap(w.spare), idleKeep)
	}
	w.idle()
	if cap(w.pending) > idleKeep || cap(w.spare) > idleKeep {
		t.Errorf("idle: pending %d, spare %d bytes, want at most %d each", cap(w.pending), cap(w.spare), idleKeep)
	}
	var box *codec.Buffer
	small := giveSpare(make([]byte, 10, idleKeep), &box)
	if cap(small) != idleKeep {
		t.Errorf("giveSpare took a buffer of %d bytes, at most idleKeep: want it kept", idleKeep)
	}
}

// A large buffer given back at every wait and taken again when busy (a
// connection whose answers are just over idleKeep) costs no allocation:
// the box it travels in goes round with it.
func TestSpare_givingAndTakingAllocateNothing(t *testing.T) {
	var box *codec.Buffer
	giveSpare(make([]byte, 0, 4*idleKeep), &box)
	n := testing.AllocsPerRun(100, func() {
		b := takeSpare(&box)
		b = append(b, make([]byte, 2*idleKeep)...)
		if giveSpare(b, &box) != nil {
			t.Fatal("a buffer over idleKeep was kept")
		}
	})
	if n != 0 {
		t.Errorf("%.0f allocations per give and take, want 0", n)
	}
}

// Callers that send while others are pending yield before they flush; every
// message still goes out once, whole, and each caller's in order.
func TestWriter_sendCallWritesEveryMessageOnce(t *testing.T) {
	s := new(writes)
	w := newWriter(s, defaultMaxPending, 0)
	const callers, each = 8, 200
	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			for i := range each {
				if err := w.sendCall([]byte(strconv.Itoa(c*each+i)), true); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	last := make([]int, callers)
	for i := range last {
		last[i] = -1
	}
	n := 0
	for _, f := range s.got() {
		for _, m := range strings.Split(strings.TrimSuffix(f, "\n"), "\n") {
			v, err := strconv.Atoi(m)
			if err != nil || v/each >= callers || v%each <= last[v/each] {
				t.Fatalf("message %q out of place (err %v)", m, err)
			}
			last[v/each] = v % each
			n++
		}
	}
	if n != callers*each {
		t.Fatalf("%d messages written, want %d", n, callers*each)
	}
}
