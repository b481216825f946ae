package httpjson

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/rawhttp"
)

// TestLinger_cutsAPeerThatKeepsSending: a client that sends a chunked body
// forever, past the limit, is answered 413 and then cut: fast, by
// LingerBytes before LingerTime; slow, by LingerTime. The handler returns
// and the client's writes fail once the server has closed.
func TestLinger_cutsAPeerThatKeepsSending(t *testing.T) {
	for _, tc := range []struct {
		name     string
		pause    time.Duration // between chunks
		min, max time.Duration // of the handler's time in ReadBody
	}{
		{"fast", 0, 0, LingerTime - 500*time.Millisecond},
		{"slow", 20 * time.Millisecond, LingerTime, LingerTime + time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			took := make(chan time.Duration, 1)
			addr := rawhttp.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				start := time.Now()
				_, err := ReadBody(w, r, nil, 1024, 10*time.Second)
				took <- time.Since(start)
				if err == nil {
					t.Error("ReadBody read a body over the limit")
				}
			}))
			nc, err := net.DialTimeout("tcp", addr, rawhttp.DialTimeout)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			nc.SetDeadline(time.Now().Add(LingerTime + 5*time.Second))
			wrote := make(chan error, 1)
			go func() {
				_, err := io.WriteString(nc, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
				chunk := "1000\r\n" + strings.Repeat("x", 0x1000) + "\r\n"
				for err == nil {
					_, err = io.WriteString(nc, chunk)
					time.Sleep(tc.pause)
				}
				wrote <- err
			}()
			var d time.Duration
			select {
			case d = <-took:
			case <-time.After(LingerTime + 3*time.Second):
				t.Fatal("the handler is still draining")
			}
			if d < tc.min || d > tc.max {
				t.Errorf("the handler took %v, want %v to %v", d, tc.min, tc.max)
			}
			if err := <-wrote; err == nil || isTimeout(err) {
				t.Fatalf("the client's write ended with %v, want the connection closed", err)
			}
		})
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}
