package conn_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/conn"
)

// Pipe holds what is written until it is read, in order, even past the
// end: messages written before Close are read, then io.EOF. Buffered says
// whether one waits; a write after Close fails.
func TestPipe_holdsMessagesUntilReadEvenPastTheEnd(t *testing.T) {
	a, b := conn.Pipe()
	buffered := b.(interface{ Buffered() bool })
	if buffered.Buffered() {
		t.Fatal("Buffered before any write")
	}
	for i := range 3 {
		if err := a.WriteMessage([]byte(strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	if !buffered.Buffered() {
		t.Fatal("not Buffered with three messages written")
	}
	a.Close()
	for i := range 3 {
		if msg, err := b.ReadMessage(); err != nil || string(msg) != strconv.Itoa(i) {
			t.Fatalf("message %d: %q %v", i, msg, err)
		}
	}
	if _, err := b.ReadMessage(); err != io.EOF {
		t.Fatalf("past the messages: %v, want io.EOF", err)
	}
	if err := b.WriteMessage([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("a write after Close: %v", err)
	}
}

// A write waits while pipeQueue (64) messages wait unread, and goes on
// when one is read; Close releases a waiting writer with
// io.ErrClosedPipe.
func TestPipe_aFullQueueHoldsTheWriter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := conn.Pipe()
		for i := range 64 {
			if err := a.WriteMessage([]byte{byte(i)}); err != nil {
				t.Fatal(err)
			}
		}
		wrote := make(chan error, 1)
		go func() { wrote <- a.WriteMessage([]byte("65th")) }()
		synctest.Wait() // the write has returned or waits for good
		select {
		case err := <-wrote:
			t.Fatalf("the 65th write returned (%v) with 64 unread", err)
		default:
		}
		if msg, err := b.ReadMessage(); err != nil || msg[0] != 0 {
			t.Fatalf("first read: %v, %v", msg, err)
		}
		if err := <-wrote; err != nil {
			t.Fatal(err)
		}
		go func() { wrote <- a.WriteMessage([]byte("66th")) }()
		synctest.Wait() // the 66th write waits
		b.Close()
		if err := <-wrote; !errors.Is(err, io.ErrClosedPipe) {
			t.Fatalf("a write held at Close: %v", err)
		}
	})
}

// A read waits for a write, and its deadline ends the wait; a deadline
// moved while it waits counts from then.
func TestPipe_readDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := conn.Pipe()
		d := b.(interface{ SetReadDeadline(time.Time) error })
		d.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		if _, err := b.ReadMessage(); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("past the deadline: %v", err)
		}
		d.SetReadDeadline(time.Now().Add(time.Hour))
		read := make(chan string, 1)
		go func() {
			msg, err := b.ReadMessage()
			if err != nil {
				msg = []byte(err.Error())
			}
			read <- string(msg)
		}()
		synctest.Wait()                // the read waits
		d.SetReadDeadline(time.Time{}) // moved while the read waits
		time.Sleep(2 * time.Hour)      // past the old deadline
		a.WriteMessage([]byte("late"))
		if got := <-read; got != "late" {
			t.Fatalf("read %q", got)
		}
	})
}

// Messages written through NewMessageStream in one burst arrive one by
// one, whole, in order, from several writers at once; a message read
// cannot be grown into the next.
func TestPipe_burstsFromConcurrentWriters(t *testing.T) {
	a, b := conn.Pipe()
	const writers, bursts, per = 4, 50, 5
	var wg sync.WaitGroup
	for w := range writers {
		s := conn.NewMessageStream(a, nil).(interface {
			AppendFrame(dst, msg []byte) []byte
			Write(frames []byte) error
		})
		wg.Go(func() {
			for k := range bursts {
				var frames []byte
				for j := range per {
					frames = s.AppendFrame(frames, fmt.Appendf(nil, "%d/%d", w, k*per+j))
				}
				if err := s.Write(frames); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	next := make([]int, writers)
	for range writers * bursts * per {
		msg, err := b.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		var w, n int
		if _, err := fmt.Sscanf(string(msg), "%d/%d", &w, &n); err != nil || n != next[w] {
			t.Fatalf("read %q, want %d/%d", msg, w, next[w])
		}
		next[w]++
		_ = append(msg, "XXXXXXXX"...) // must not reach the next message
	}
	wg.Wait()
}
