package rawhttp_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/internal/rawhttp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m, goleak.IgnoreCurrent()) }

// serve answers one connection with answer once it has read want, then
// closes it: at once, or, if hold, when the test ends.
func serve(t *testing.T, want, answer string, hold bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done, release := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		got := make([]byte, len(want))
		if _, err := io.ReadFull(nc, got); err != nil || string(got) != want {
			t.Errorf("the server read %q, %v; want %q", got, err, want)
			return
		}
		io.WriteString(nc, answer)
		if hold {
			<-release
		}
	}()
	t.Cleanup(func() {
		close(release)
		ln.Close()
		<-done
	})
	return ln.Addr().String()
}

const (
	req = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
	ans = "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\nhello"
)

func TestConn_readsTheAnswerAndTheConnectionsEnd(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		hold         bool
		want         error
	}{
		{"closed", ans, false, nil},
		{"open", ans, true, rawhttp.ErrOpen},
		{"more", ans + "HTTP/1.1 200 OK\r\n", false, rawhttp.ErrMore},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := rawhttp.Send(t, serve(t, req, tc.answer, tc.hold), req, 10*time.Second)
			defer c.Close()
			res, err := c.ReadResponse()
			if err != nil || res.Status != 400 || res.Header.Get("Content-Type") != "application/json" || res.Body != "hello" {
				t.Fatalf("%+v %v", res, err)
			}
			// The wait ends early on a close or more bytes; it runs out
			// only on the connection held open.
			wait := 10 * time.Second
			if tc.hold {
				wait = 100 * time.Millisecond
			}
			if err := c.WaitClose(wait); !errors.Is(err, tc.want) {
				t.Fatalf("WaitClose: %v, want %v", err, tc.want)
			}
		})
	}
}

func TestConn_skipsAStreamAndDrainsToTheEnd(t *testing.T) {
	stream := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: 1\n\n"
	c := rawhttp.Send(t, serve(t, req, stream, false), req, 10*time.Second)
	defer c.Close()
	c.SkipStreams = true
	res, err := c.ReadResponse()
	if err != nil || res.Status != 200 || res.Body != "" {
		t.Fatalf("%+v %v", res, err)
	}
	if err := c.Drain(5 * time.Second); err != nil {
		t.Fatalf("Drain: %v", err)
	}

	// Without SkipStreams, a stream is read until the deadline.
	c = rawhttp.Send(t, serve(t, req, stream, true), req, 200*time.Millisecond)
	defer c.Close()
	if res, err := c.ReadResponse(); err == nil || res == nil || res.Body != "data: 1\n\n" {
		t.Fatalf("%+v %v, want the stream's start and the deadline's error", res, err)
	}
	if err := c.Drain(100 * time.Millisecond); !errors.Is(err, rawhttp.ErrOpen) {
		t.Fatalf("Drain: %v, want ErrOpen", err)
	}
}

func TestServe_answersOnLoopback(t *testing.T) {
	addr := rawhttp.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
		io.WriteString(w, r.Host)
	}))
	c := rawhttp.Send(t, addr, "GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", 10*time.Second)
	defer c.Close()
	if res, err := c.ReadResponse(); err != nil || res.Status != http.StatusTeapot || res.Body != "h" {
		t.Fatalf("%+v %v", res, err)
	}
	if err := c.WaitClose(5 * time.Second); err != nil {
		t.Fatalf("WaitClose: %v", err)
	}
}
