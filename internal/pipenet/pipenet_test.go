package pipenet_test

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/internal/pipenet"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestListener_dialMeetsAcceptAndCloseEndsBoth(t *testing.T) {
	l := pipenet.Listen()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			t.Error(err)
		}
		accepted <- c
	}()
	client, err := l.Dial(context.Background(), "tcp", "ignored:1")
	if err != nil {
		t.Fatal(err)
	}
	server := <-accepted
	go func() { io.WriteString(client, "hello"); client.Close() }()
	if got, err := io.ReadAll(server); err != nil || string(got) != "hello" {
		t.Fatalf("the server read %q, %v", got, err)
	}
	server.Close()

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Dial(ctx, "", ""); !errors.Is(err, context.Canceled) {
		t.Fatalf("Dial with no Accept and an ended context: %v", err)
	}
	l.Close()
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Accept after Close: %v", err)
	}
	if _, err := l.Dial(context.Background(), "", ""); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Dial after Close: %v", err)
	}
	if a := l.Addr(); a.Network() != "pipe" || a.String() != "pipe" {
		t.Fatalf("Addr %v %v", a.Network(), a)
	}
}

// TestListener_giveHandsOverUntilClosed: a connection made elsewhere is
// accepted as it is; once the listener is closed Give fails and leaves it
// to the caller.
func TestListener_giveHandsOverUntilClosed(t *testing.T) {
	l := pipenet.Listen()
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		accepted <- c
	}()
	if err := l.Give(a); err != nil {
		t.Fatal(err)
	}
	if c := <-accepted; c != a {
		t.Fatalf("accepted %v, want the connection given", c)
	}
	l.Close()
	if err := l.Give(b); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Give after Close: %v, want net.ErrClosed", err)
	}
}
