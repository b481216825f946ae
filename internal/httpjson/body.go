package httpjson

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/codec"
)

// Reading a request's body, with a deadline that holds.
//
// net/http gives a server without ReadTimeout (one that holds event
// streams) no deadline on a body once the header is read, and it reads
// what a handler left of a body itself — up to 256 KiB, when the handler
// answers, and again when it returns — so a peer that sends a header and
// then stalls holds the connection, its descriptor and its goroutine for
// as long as it likes. Two rules close that:
//
//   - BoundBody sets the connection's read deadline when a request with a
//     body comes in, before anything reads it (the handler, or net/http's
//     own drain after an early answer such as 401 or 415).
//   - ReadBody clears that deadline only once the body was read whole. A
//     failed read leaves it in the past and asks for Connection: close,
//     so net/http's drain fails at once and the connection is not reused:
//     what follows a half-read body on the wire is never taken for a
//     request.
//
// A 413 is the exception: net/http reads at most 256 KiB of a body a
// handler left, and none of a request answered with Connection: close,
// before it closes (after a short wait for the peer to read), and
// closing a socket with unread data resets it. So
// ReadBody's 413 lingers (Linger): it reads and drops the rest of the
// body within LingerBytes and LingerTime before the connection closes.

// BoundBody sets the read deadline of r's connection to now+d when r has
// a body (a Content-Length other than 0, or a chunked one), so that every
// read of it gives up by then; it does nothing for d <= 0, for a request
// without a body, or when the connection cannot take a deadline (HTTP/2
// bounds its streams itself). A later BoundBody moves the deadline.
//
// An HTTP/1.1 request with a Transfer-Encoding is answered with
// Connection: close, whatever d: RFC 9112 §6.1 has a server close the
// connection after a request that carries both Transfer-Encoding and
// Content-Length (an attempt at request smuggling), and net/http drops
// the Content-Length before a handler sees the request, so the two cannot
// be told apart. A client that sends its bodies chunked opens a connection
// per request.
func BoundBody(w http.ResponseWriter, r *http.Request, d time.Duration) {
	if len(r.TransferEncoding) > 0 && r.ProtoMajor == 1 {
		w.Header()["Connection"] = connectionClose
	}
	if d <= 0 || r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody {
		return
	}
	setReadDeadline(w, time.Now().Add(d))
}

// setReadDeadline is http.ResponseController's SetReadDeadline without its
// allocation: it sets the read deadline of w's connection, through the
// writers that wrap it (Unwrap), if it has one.
func setReadDeadline(w http.ResponseWriter, t time.Time) {
	for {
		switch x := w.(type) {
		case interface{ SetReadDeadline(time.Time) error }:
			_ = x.SetReadDeadline(t)
			return
		case interface{ Unwrap() http.ResponseWriter }:
			w = x.Unwrap()
		default:
			return
		}
	}
}

// connectionClose is assigned to header maps as it is (see ContentType).
var connectionClose = []string{"close"}

// BoundBodies returns h with BoundBody(w, r, d) applied to every request
// before h sees it: the early answers of h and of what it wraps (a
// token check, a host check, a wrong method or content type) cannot leave
// net/http reading a stalled body without a deadline, and a chunked
// request's connection is closed after its answer.
func BoundBodies(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		BoundBody(w, r, d)
		h.ServeHTTP(w, r)
	})
}

// The messages of the JSON-RPC errors every HTTP endpoint answers a
// request it could not read with: MsgTooLarge with 413 (a body over the
// limit), MsgBodyRead with 400 (a body timed out, cut off or malformed),
// MsgRequestRead with 400 (a request, header or body, the server could
// not read: fasthttp's). They are the only texts of those answers; none
// carries an error's text.
const (
	MsgTooLarge    = "Request Entity Too Large: the body exceeds the limit"
	MsgBodyRead    = "Bad Request: the body could not be read (timed out, cut off or malformed)"
	MsgRequestRead = "Bad Request: the request could not be read"
)

// ReadBody reads r's body into buf (from its start; it grows as needed
// and is returned) within max bytes (codec.ReadBody's rule) and within d
// (BoundBody; d <= 0: the deadline already set, if any). It reports
// whether the body was read whole; when it was not, it has answered the
// request itself with Connection: close — 413 with MsgTooLarge for a
// body over max (one whose Content-Length says so is not read at all),
// 400 with MsgBodyRead for any other failure (a timeout, a peer gone, a
// malformed chunk) — and left the read deadline in the
// past, so the connection ends with the answer. After a 413 the rest of
// the body is first read and dropped within Linger's bounds, so that a
// client that writes its whole body before it reads gets the 413, not a
// reset; after a 400 it is not read. On success the read deadline is
// cleared: the body is read, and the wait for a next request is the
// server's IdleTimeout's.
func ReadBody(w http.ResponseWriter, r *http.Request, buf []byte, max int, d time.Duration) ([]byte, error) {
	BoundBody(w, r, d)
	var err error
	if max > 0 && r.ContentLength > int64(max) {
		err = &codec.FrameError{Err: codec.ErrFrameTooLarge} // refused unread
	} else {
		buf, err = codec.ReadBody(r.Body, max, buf)
	}
	if err == nil {
		setReadDeadline(w, time.Time{})
		return buf, nil
	}
	if fe := (*codec.FrameError)(nil); errors.As(err, &fe) {
		ErrorClose(w, http.StatusRequestEntityTooLarge, codec.CodeInvalidRequest, MsgTooLarge)
		Linger(w, r)
		return buf, err
	}
	ErrorClose(w, http.StatusBadRequest, codec.CodeInvalidRequest, MsgBodyRead)
	return buf, err
}

// ErrorClose answers as Error does, with Connection: close, and ends the
// connection with the answer without reading what is left of the
// request's body: the read deadline is put in the past, so net/http's
// drain of the body fails at once.
func ErrorClose(w http.ResponseWriter, status int, code codec.Code, msg string) {
	setReadDeadline(w, time.Unix(1, 0))
	w.Header()["Connection"] = connectionClose
	Error(w, status, code, msg)
}

// Bounds of Linger's drain of a body left unread after an answer. Time is
// the bound that holds a connection and its goroutine; bytes stop a fast
// peer from keeping a core busy for that time. LingerBytes is twice the
// default frame limit, so that a client whose body is refused under the
// defaults, or under a lower limit, commonly still reads the answer.
const (
	LingerBytes = 2 * codec.DefaultMaxFrameBytes
	LingerTime  = 3 * time.Second
)

// Linger is the lingering close of an answer that leaves r's body unread
// and ends the connection (Connection: close, as ErrorClose sets): it
// flushes the answer, then reads and drops the rest of the body, at most
// LingerBytes within LingerTime, and puts the read deadline in the past.
// A client that writes its whole body before it reads anything
// (urllib, requests) then finds the answer in its receive buffer when the
// connection closes, rather than a reset: the kernel resets a connection
// closed with unread data, and a client may lose what it had not read.
// When the body ends within the bounds, the connection closes cleanly;
// otherwise net/http closes it with its own short wait for the peer to
// read (closeWriteAndWait).
//
// It reads nothing when the request announced a body longer than
// LingerBytes (the drain could not reach its end) or asked for 100
// Continue (the client sends no body after a final answer), and nothing
// of a connection that cannot take a read deadline, where the time bound
// would not hold. It must be called by the handler, before it returns,
// after the answer is written; it blocks for up to LingerTime.
func Linger(w http.ResponseWriter, r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength > LingerBytes ||
		strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
		return
	}
	rc := http.NewResponseController(w)
	if rc.Flush() != nil || rc.SetReadDeadline(time.Now().Add(LingerTime)) != nil {
		setReadDeadline(w, time.Unix(1, 0))
		return
	}
	_, _ = io.CopyN(io.Discard, r.Body, LingerBytes)
	_ = rc.SetReadDeadline(time.Unix(1, 0)) // net/http reads no more of it
}
