package rawhttp

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// DialTimeout bounds Send's dial.
const DialTimeout = 5 * time.Second

// Errors of WaitClose and Drain.
var (
	ErrOpen = errors.New("rawhttp: the connection is still open")
	ErrMore = errors.New("rawhttp: more bytes, not the connection's end")
)

// Serve serves h on loopback as a server that also holds event streams is
// set: a header timeout of 10s, an idle timeout of a minute, no
// ReadTimeout, so that only the handler bounds the read of a body. It
// returns the server's host:port; the server is closed when the test ends.
func Serve(t testing.TB, h http.Handler) string {
	t.Helper()
	s := httptest.NewUnstartedServer(h)
	s.Config.ReadHeaderTimeout = 10 * time.Second
	s.Config.IdleTimeout = time.Minute
	s.Start()
	t.Cleanup(s.Close)
	return strings.TrimPrefix(s.URL, "http://")
}

// Conn is the client's end of a TCP connection to a server under test. It
// is not safe for concurrent use.
type Conn struct {
	// SkipStreams makes ReadResponse leave the body of an event stream
	// (Content-Type text/event-stream), which need not end, unread on the
	// connection: Response.Body is then "".
	SkipStreams bool

	nc net.Conn
	br *bufio.Reader
}

// Response is a response read from a Conn.
type Response struct {
	Status int
	Header http.Header
	Body   string // the whole body, or what of it came before an error
}

// Send connects to addr (host:port) within DialTimeout, sets the
// connection's deadline for every read and write to timeout from now, and
// writes req as it is. It fails t if the dial or the write fails. The
// caller closes the Conn.
func Send(t testing.TB, addr, req string, timeout time.Duration) *Conn {
	t.Helper()
	deadline := time.Now().Add(timeout)
	nc, err := net.DialTimeout("tcp", addr, DialTimeout)
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(deadline)
	if _, err := io.WriteString(nc, req); err != nil {
		nc.Close()
		t.Fatal(err)
	}
	return &Conn{nc: nc, br: bufio.NewReader(nc)}
}

// Close closes the connection.
func (c *Conn) Close() error { return c.nc.Close() }

// ReadResponse reads the next response: its status line, its header and
// its body to the end (see SkipStreams). If no response comes, it returns
// nil and the error; if the body is cut short, it returns the response
// with what of the body came, and the error.
func (c *Conn) ReadResponse() (*Response, error) {
	res, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return nil, err
	}
	r := &Response{Status: res.StatusCode, Header: res.Header}
	if c.SkipStreams && strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		// Not closed either: Close would read the stream to its end.
		return r, nil
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	r.Body = string(b)
	return r, err
}

// WaitClose waits at most d for the server to close the connection. It
// returns nil if the server did (an end of file or a reset), ErrOpen if d
// passed first, and ErrMore if bytes came instead; they are left to read.
func (c *Conn) WaitClose(d time.Duration) error {
	c.nc.SetReadDeadline(time.Now().Add(d))
	_, err := c.br.Peek(1)
	return closeErr(err)
}

// Drain reads and drops whatever comes for at most d, until the server
// closes the connection: it returns nil if the server did, ErrOpen if d
// passed first.
func (c *Conn) Drain(d time.Duration) error {
	c.nc.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c.br)
	if err == nil {
		return nil // io.Copy's end of file
	}
	return closeErr(err)
}

// closeErr maps a read's error to WaitClose's.
func closeErr(err error) error {
	var ne net.Error
	switch {
	case err == nil:
		return ErrMore
	case errors.As(err, &ne) && ne.Timeout():
		return ErrOpen
	}
	return nil
}
