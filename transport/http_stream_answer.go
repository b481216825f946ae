package transport

import (
	"math"
	"net/http"
	"strconv"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/httpjson"
)

// What a client stream over HTTP answers requests with when the server's
// answer is not a JSON-RPC response (NewHTTPStream).

// errAnswerTooLarge answers each request whose answer exceeded the limit.
var errAnswerTooLarge = errorObject(codec.NewError(codec.CodeResponseTooLarge, "Response too large: the answer exceeds the frame limit"))

// errorStatus serves an error status: a JSON-RPC answer that names its
// requests is delivered as it is; an error without id is given to each
// request of the POST; anything else becomes statusError's error for each.
func (c *httpConn) errorStatus(res *http.Response, sent []byte, body *codec.Buffer) {
	defer c.bodies.Put(body)
	var errObj []byte // nil: a *HTTPStatusError for each call
	if statusCode(res.StatusCode) != codec.CodeInternalError {
		errObj = errorObject(statusError(res, ""))
	}
	if httpjson.IsJSON(res.Header.Get("Content-Type")) {
		msgs, batch, err := scanner(len(body.B), sentJSONRPC1(sent)).Scan(body.B)
		switch {
		case err != nil:
		case batch:
			c.deliver(c.copyOf(body.B))
			return
		case msgs[0].Kind == codec.KindResult, msgs[0].Kind == codec.KindError && !isNull(msgs[0].ID):
			c.deliver(c.copyOf(body.B))
			return
		case msgs[0].Kind == codec.KindError:
			errObj = msgs[0].ErrorObj
		}
	}
	if errObj == nil {
		c.failEach(sent, NewHTTPStatusError(res))
		return
	}
	c.answerEach(sent, errObj)
}

// callErrMark, queued for ReadMessage, says that a call's error waits in
// callErrs.
var callErrMark = new(codec.Buffer)

// failEach fails each request of sent, a message or batch this stream
// sent, with err (a *conn.CallError each, for ReadMessage to return).
func (c *httpConn) failEach(sent []byte, err error) {
	eachRequest(sent, func(id []byte) {
		c.mu.Lock()
		c.callErrs = append(c.callErrs, &conn.CallError{ID: append([]byte(nil), id...), Err: err})
		c.mu.Unlock()
		c.deliver(callErrMark)
	})
}

// takeCallErr returns the first call error queued.
func (c *httpConn) takeCallErr() *conn.CallError {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.callErrs[0]
	c.callErrs[0] = nil
	c.callErrs = c.callErrs[1:]
	return e
}

// answerEach delivers an error response with errObj to each request of
// sent, a message or batch this stream sent.
func (c *httpConn) answerEach(sent, errObj []byte) {
	eachRequest(sent, func(id []byte) {
		b := c.bodies.Get()
		b.B = append(b.B[:0], responseHead...)
		b.B = append(b.B, id...)
		b.B = append(b.B, errorMember...)
		b.B = append(b.B, errObj...)
		b.B = append(b.B, '}')
		c.deliver(b)
	})
}

// eachRequest calls f with the id of each request of sent, a message or
// batch this stream sent; nothing when it is not one (nothing awaits an
// answer).
func eachRequest(sent []byte, f func(id []byte)) {
	msgs, _, err := scanner(len(sent), true).Scan(sent) // what it sent: 1.0 requests too
	if err != nil {
		return
	}
	for i := range msgs {
		if msgs[i].Kind == codec.KindRequest {
			f(msgs[i].ID)
		}
	}
}

// scanner returns a scanner for a message of n bytes, however long a
// batch it holds: this rare path scans what the stream sent, or what a
// server sent with an error status. With jsonrpc1 it reads JSON-RPC 1.0
// objects too (a 2.0 message reads as it would without).
func scanner(n int, jsonrpc1 bool) *codec.Scanner {
	lim := codec.Limits{MaxFrameBytes: n + 1, MaxBatch: math.MaxInt32}
	lim = lim.WithDefaults()
	s := codec.NewScanner(&lim)
	s.SetJSONRPC1(jsonrpc1)
	return s
}

// sentJSONRPC1 reports whether sent, a message this stream sent, is a
// JSON-RPC 1.0 request or notification (conn.Options.SendJSONRPC1): its
// server's answer may then be a 1.0 one.
func sentJSONRPC1(sent []byte) bool {
	msgs, batch, err := scanner(len(sent), true).Scan(sent)
	return err == nil && !batch && msgs[0].JSONRPC1
}

func (c *httpConn) copyOf(msg []byte) *codec.Buffer {
	b := c.bodies.Get()
	b.B = append(b.B[:0], msg...)
	return b
}

// deliver queues an answer for ReadMessage, or drops it once the stream is
// closed.
func (c *httpConn) deliver(b *codec.Buffer) {
	select {
	case c.in <- b:
	case <-c.ctx.Done():
		if b != callErrMark {
			c.bodies.Put(b)
		}
	}
}

// fail ends the stream with err (the first failure only).
func (c *httpConn) fail(err error) {
	c.failOnce.Do(func() {
		c.err = err
		close(c.failed)
	})
}

// statusError is the error a request gets from an HTTP status without a
// JSON-RPC answer: the inverse of HTTPHandler's mapping (401 → -32009,
// 403 → -32010, 429 → -32011, 503 → -32000), -32603 for the rest. Its
// data holds httpStatus and, from Retry-After (in seconds), retryAfterMs.
func statusError(res *http.Response, why string) *codec.Error {
	code := statusCode(res.StatusCode)
	msg := "HTTP " + res.Status
	if why != "" {
		msg += ": " + why
	}
	data := strconv.AppendInt([]byte(`{"httpStatus":`), int64(res.StatusCode), 10)
	if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s >= 0 {
		data = strconv.AppendInt(append(data, `,"retryAfterMs":`...), int64(s)*1000, 10)
	}
	return codec.NewError(code, msg).WithData(codec.Raw(append(data, '}')))
}

// statusCode is the JSON-RPC code an HTTP status stands for:
// HTTPHandler's mapping inverted, -32603 for the rest.
func statusCode(status int) codec.Code {
	switch status {
	case http.StatusUnauthorized:
		return codec.CodeUnauthorized
	case http.StatusForbidden:
		return codec.CodeForbidden
	case http.StatusTooManyRequests:
		return codec.CodeTooManyRequests
	case http.StatusServiceUnavailable:
		return codec.CodeOverloaded
	}
	return codec.CodeInternalError
}

// errorObject returns e's JSON error object.
func errorObject(e *codec.Error) []byte {
	resp := codec.AppendError(nil, nil, e) // {"jsonrpc":"2.0","id":null,"error":{…}}
	return resp[len(responseHead)+len("null")+len(errorMember) : len(resp)-1]
}

func isNull(id []byte) bool { return id == nil || string(id) == "null" }
