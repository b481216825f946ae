package transport

import (
	"bytes"
	"context"
	"errors"
	"math"
	"net"
	"net/http"
	"net/textproto"
	"sync"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/httpjson"
)

// DefaultMaxConcurrentPosts is HTTPClientOptions.MaxConcurrent's default.
const DefaultMaxConcurrentPosts = 64

// HTTPClientOptions configure a client stream over HTTP POST
// (NewHTTPStream). A nil *HTTPClientOptions gives the defaults; the value
// is copied.
type HTTPClientOptions struct {
	// Client sends the POSTs (nil: one of the stream's own, keeping
	// MaxConcurrent idle connections, with proxies from the environment;
	// its idle connections are closed with the stream). A Client.Timeout
	// bounds each POST; one that times out ends the stream like any
	// transport failure.
	Client *http.Client
	// Header is added to every POST (Authorization, say).
	Header http.Header
	// Limits bound an answer: a body longer than MaxFrameBytes is not
	// read, and each request it answered fails with -32003 (nil: codec
	// defaults).
	Limits *codec.Limits
	// MaxConcurrent bounds the POSTs in flight (default
	// DefaultMaxConcurrentPosts); past it, sending waits for one to end.
	MaxConcurrent int
}

// NewHTTPClient returns the http.Client a client stream makes for itself
// when HTTPClientOptions.Client is nil: http.DefaultTransport's settings
// (proxies from the environment, its dial and TLS timeouts), no overall
// timeout, and room for maxIdle idle connections to each host, so that
// maxIdle requests in flight at once reuse their connections instead of
// dialling anew (http.DefaultTransport keeps 2 per host).
func NewHTTPClient(maxIdle int) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = maxIdle
	tr.MaxIdleConnsPerHost = maxIdle
	return &http.Client{Transport: tr}
}

// NewHTTPStream returns a client-side message stream that speaks JSON-RPC
// over HTTP POST to url, for a client session (conn.NewStream(s, opts)).
// Each message or batch the session writes becomes one POST
// (application/json), sent concurrently with the others in flight: the
// server may receive them in any order, as HTTP promises none. The body
// of each answer, if any, is what Next returns; a 204 (or 202) gives
// nothing.
//
// Every request still gets one answer when the server's is not a JSON-RPC
// response: an error status without one answers each request of the POST
// with an error — -32009 for 401, -32010 for 403, -32011 for 429 and
// -32000 for 503 (both with data.retryAfterMs from Retry-After),
// data.httpStatus saying the status; any other (a 404 from a wrong URL, a
// proxy's 502) fails each call with a *HTTPStatusError — and an error body
// without an id (a 413's) is given each request's id.
// A POST that gets no HTTP answer at all (the server is down, the
// connection broke) ends the stream with that error, as a broken socket
// ends a TCP stream: every call pending on the session fails, and a
// client redials (makes a new stream). The stream cannot be read from by
// the server: server-to-client requests need WebSocket.
func NewHTTPStream(url string, opts *HTTPClientOptions) conn.Stream {
	var o HTTPClientOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = DefaultMaxConcurrentPosts
	}
	lim := o.Limits.WithDefaults()
	c := &httpConn{
		url:    url,
		hc:     o.Client,
		header: canonicalHeader(o.Header),
		max:    lim.MaxFrameBytes,
		slots:  make(chan struct{}, o.MaxConcurrent),
		in:     make(chan *codec.Buffer, o.MaxConcurrent),
		failed: make(chan struct{}),
	}
	if c.hc == nil {
		c.hc, c.own = NewHTTPClient(o.MaxConcurrent), true
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	// ReadMessage bounds what the server sends itself; what it makes up
	// (the errors of failed POSTs) may exceed a small limit and must pass.
	return conn.NewMessageStream(c, &codec.Limits{MaxFrameBytes: math.MaxInt})
}

// canonicalHeader copies h with its keys in canonical form, so that they
// can be assigned to request headers as they are.
func canonicalHeader(h http.Header) http.Header {
	c := make(http.Header, len(h))
	for k, v := range h {
		ck := textproto.CanonicalMIMEHeaderKey(k)
		c[ck] = append(c[ck], v...)
	}
	return c
}

// httpConn is the conn.MessageConn under NewHTTPStream: WriteMessage
// starts a POST on a goroutine of its own, whose answers queue for
// ReadMessage.
type httpConn struct {
	url    string
	hc     *http.Client
	own    bool // hc is the stream's: its idle connections close with it
	header http.Header
	max    int
	slots  chan struct{} // one per POST in flight
	in     chan *codec.Buffer
	bodies codec.BufferPool
	last   *codec.Buffer // returned by the last ReadMessage; the reader's

	ctx    context.Context // cancelled by Close: ends the POSTs in flight
	cancel context.CancelFunc

	mu       sync.Mutex
	closed   bool
	posts    sync.WaitGroup
	callErrs []*conn.CallError // each announced by a callErrMark in in

	failOnce sync.Once
	failed   chan struct{} // closed on the first POST without an answer
	err      error         // why; written before failed is closed
}

// WriteMessage starts a POST of msg, once fewer than MaxConcurrent are in
// flight.
func (c *httpConn) WriteMessage(msg []byte) error {
	select {
	case c.slots <- struct{}{}:
	case <-c.ctx.Done():
		return net.ErrClosed
	case <-c.failed:
		return c.err
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		<-c.slots
		return net.ErrClosed
	}
	c.posts.Add(1)
	c.mu.Unlock()
	b := c.bodies.Get()
	b.B = append(b.B[:0], msg...)
	go c.post(b)
	return nil
}

// ReadMessage returns the next answer: valid until the next call. Answers
// already received come before the error that ended the stream.
func (c *httpConn) ReadMessage() ([]byte, error) {
	if c.last != nil {
		c.bodies.Put(c.last)
		c.last = nil
	}
	var b *codec.Buffer
	select {
	case b = <-c.in:
	case <-c.failed:
		select {
		case b = <-c.in:
		default:
			return nil, c.err
		}
	case <-c.ctx.Done():
		return nil, net.ErrClosed
	}
	if b == callErrMark {
		return nil, c.takeCallErr()
	}
	c.last = b
	return b.B, nil
}

// Buffered reports whether an answer is waiting.
func (c *httpConn) Buffered() bool { return len(c.in) > 0 }

// Close cancels the POSTs in flight and waits for them to end.
func (c *httpConn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	c.posts.Wait()
	if c.own {
		c.hc.CloseIdleConnections()
	}
	return nil
}

// post sends one message and queues what answers it.
func (c *httpConn) post(msg *codec.Buffer) {
	defer func() {
		c.bodies.Put(msg)
		<-c.slots
		c.posts.Done()
	}()
	req, err := http.NewRequestWithContext(c.ctx, http.MethodPost, c.url, bytes.NewReader(msg.B))
	if err != nil {
		c.fail(err)
		return
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	req.Header["Content-Type"] = httpjson.ContentType
	req.Header["Accept"] = httpjson.ContentType
	res, err := c.hc.Do(req)
	if err != nil {
		c.fail(err)
		return
	}
	defer res.Body.Close()
	body := c.bodies.Get()
	body.B, err = codec.ReadBody(res.Body, c.max, body.B)
	var fe *codec.FrameError
	switch {
	case errors.As(err, &fe):
		c.bodies.Put(body)
		c.answerEach(msg.B, errAnswerTooLarge)
	case err != nil:
		c.bodies.Put(body)
		c.fail(err)
	case len(body.B) == 0 && res.StatusCode/100 == 2: // 204, 202: nothing is due
		c.bodies.Put(body)
	case res.StatusCode/100 == 2 && httpjson.IsJSON(res.Header.Get("Content-Type")):
		c.deliver(body)
	case res.StatusCode/100 == 2:
		c.bodies.Put(body)
		c.answerEach(msg.B, errorObject(statusError(res, "unexpected Content-Type "+res.Header.Get("Content-Type"))))
	default:
		c.errorStatus(res, msg.B, body)
	}
}
