package conn_test

import (
	"errors"
	"io"
	"strconv"
	"testing"

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
