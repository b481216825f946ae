package streamable

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/httpjson"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// ClientOptions configure a client's Streamable HTTP transport. A nil
// *ClientOptions gives the defaults; a zero field takes its default.
type ClientOptions struct {
	// HTTPClientOptions are what every HTTP client of the engine takes,
	// set the same way on each (transport.HTTPClientOptions):
	//   - Client sends the requests. Nil: a client of the session's own
	//     (transport.NewHTTPClient(MaxConcurrent): no overall timeout,
	//     for event streams last), whose idle connections are closed
	//     with the session.
	//   - Header is added to every request (Authorization, say).
	//   - Limits.MaxFrameBytes bounds one message received, in bytes
	//     (nil: codec.DefaultMaxFrameBytes).
	//   - MaxConcurrent bounds the requests posted at once (default
	//     transport.DefaultMaxConcurrentPosts); past it a request waits
	//     for one to end, while notifications and responses go on.
	transport.HTTPClientOptions
	// MaxRetries bounds the attempts in a row to resume a broken event
	// stream that bring nothing (default DefaultMaxRetries); the delay
	// between them is the server's retry field (else 1s), doubled each
	// time up to 30s.
	MaxRetries int
	// DisableSSEFallback makes Connect speak Streamable HTTP only. By
	// default, a server that refuses the initialize POST with 400, 404 or
	// 405 is tried as a 2024-11-05 HTTP+SSE server at the same URL
	// (ConnectSSE), as the specification's backwards compatibility
	// section says.
	DisableSSEFallback bool
	// Authorizer, if set, authorizes every request: requests go through
	// the round tripper Authorizer.Transport returns for the
	// http.Client's. oauth.Authorizer is one: it adds the access token
	// and answers the server's 401 and 403 insufficient_scope challenges
	// with the flow of the MCP authorization specification, the same in
	// every protocol version.
	Authorizer Authorizer
}

// Authorizer wraps an HTTP round tripper so that the requests sent through
// it carry the credentials it obtains (oauth.Authorizer implements it).
// Transport is called once per session; what it returns must be safe for
// concurrent use.
type Authorizer interface {
	Transport(base http.RoundTripper) http.RoundTripper
}

// DefaultMaxRetries is ClientOptions.MaxRetries' default.
const DefaultMaxRetries = 5

// withDefaults returns the options with their defaults, and whether the
// http.Client is the transport's own.
func (o *ClientOptions) withDefaults() (ClientOptions, bool) {
	var c ClientOptions
	if o != nil {
		c = *o
	}
	if c.MaxRetries <= 0 {
		c.MaxRetries = DefaultMaxRetries
	}
	if c.MaxConcurrent <= 0 {
		c.MaxConcurrent = transport.DefaultMaxConcurrentPosts
	}
	own := c.Client == nil
	if own {
		c.Client = transport.NewHTTPClient(c.MaxConcurrent)
	}
	if c.Authorizer != nil {
		hc := *c.Client
		hc.Transport = c.Authorizer.Transport(hc.Transport)
		c.Client = &hc
	}
	return c, own
}

// Connect connects to the MCP server at endpoint over Streamable
// HTTP and runs the handshake; a server that refuses the initialize POST
// with 400, 404 or 405 is tried as a 2024-11-05 HTTP+SSE server at the
// same URL (ConnectSSE) unless opts.DisableSSEFallback, and when that
// fails too the first error is returned. Each message goes out in a POST of its
// own; the server's answers come back as JSON or on the POST's event
// stream, together with what the server sends while serving it (progress,
// logs, sampling and elicitation requests). After the handshake the
// session holds a GET stream open for what the server sends outside of
// any request, if the server offers one. Connect returns once the server
// has answered that GET (opened the stream or refused it), ctx ended, or
// maxListenWait (1s) passed: what the server sends there right after the
// handshake is not missed, and the GET reaches the server before the
// session's first request. A stream that breaks before its answer came is
// resumed with GET and Last-Event-ID. Closing the session ends it at the
// server too (DELETE).
//
// Requests go out concurrently, each in its own POST; notifications and
// responses are sent one at a time, each once the server accepted the one
// before (202), so they reach it in order.
func Connect(ctx context.Context, c *mcp.Client, endpoint string, opts *ClientOptions) (*mcp.ClientSession, error) {
	t := newHTTPClientStream(endpoint, opts)
	cs, err := c.ConnectTransport(ctx, t, t)
	if err == nil {
		if !mcp.IsStatelessVersion(cs.ProtocolVersion()) { // no GET stream there
			t.awaitListening(ctx)
		}
		return cs, nil
	}
	if opts != nil && opts.DisableSSEFallback {
		return nil, err
	}
	switch t.refused.Load() {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
		if cs, err2 := ConnectSSE(ctx, c, endpoint, opts); err2 == nil {
			return cs, nil
		}
	}
	return nil, err
}

// NewClientStream returns the client side of Streamable HTTP as a
// bare conn.Stream, for a program that speaks MCP's messages itself (a
// load generator, a proxy) rather than through a ClientSession: Write
// posts each message (each request concurrently, in a POST of its own),
// Next returns what the answers and their event streams bring. The
// session id the server gives with initialize's answer is sent with every
// later request; call negotiated with the protocol version initialize
// agreed on, and it is sent too (MCP-Protocol-Version). No GET stream is
// opened. Close ends the session at the server too (DELETE).
func NewClientStream(endpoint string, opts *ClientOptions) (s conn.Stream, negotiated func(version string)) {
	t := newHTTPClientStream(endpoint, opts)
	return t, t.Negotiated
}

// httpClientStream is a conn.Stream over Streamable HTTP: Write posts each
// message, Next returns what the POST responses and the GET stream bring.
type httpClientStream struct {
	url    string
	client *http.Client
	own    bool // client is ours: its idle connections close with the stream
	header http.Header
	retry  int
	max    int
	slots  chan struct{} // one per request posted (MaxConcurrent)
	tools  toolHeaders   // x-mcp-header annotations of the tools listed

	ctx    context.Context // ends with the stream: every request stops
	cancel context.CancelFunc
	inbox                 // what the requests and streams bring
	once   sync.Once      // Close's
	wg     sync.WaitGroup // every goroutine of the stream

	session   atomic.Pointer[string]
	version   atomic.Pointer[string]
	refused   atomic.Int32   // the status of the first request refused before a session began
	scan      *codec.Scanner // Write's
	scanners  sync.Pool      // the event readers'
	calls     sync.Map       // id (as sent) → *pendingCall
	validated validators     // results kept for If-None-Match

	listening chan struct{} // closed once the server answered listen's first GET
	listened  func()        // closes listening, once
}

func newHTTPClientStream(endpoint string, o *ClientOptions) *httpClientStream {
	opts, own := o.withDefaults()
	t := &httpClientStream{
		url:    endpoint,
		client: opts.Client,
		own:    own,
		header: opts.Header,
		retry:  opts.MaxRetries,
		max:    opts.Limits.WithDefaults().MaxFrameBytes,
		slots:  make(chan struct{}, opts.MaxConcurrent),
		inbox:  newInbox(),
		scan:   codec.NewScanner(nil),
	}
	t.ctx, t.cancel = context.WithCancel(context.Background())
	t.listening = make(chan struct{})
	t.listened = sync.OnceFunc(func() { close(t.listening) })
	return t
}

// Next implements conn.Stream.
// What was delivered before the stream failed is read first.
func (t *httpClientStream) Next() ([]byte, error) { return t.next() }

// Buffered implements conn.Stream.
func (t *httpClientStream) Buffered() bool { return len(t.in) > 0 }

// AppendFrame implements conn.Stream: a 4-byte length, then the message.
func (t *httpClientStream) AppendFrame(dst, msg []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(msg)))
	return append(dst, msg...)
}

// FrameInPlace implements conn.Stream.
func (t *httpClientStream) FrameInPlace(buf []byte, start int) []byte {
	n := len(buf) - start
	buf = append(buf, 0, 0, 0, 0)
	copy(buf[start+4:], buf[start:start+n])
	binary.BigEndian.PutUint32(buf[start:], uint32(n))
	return buf
}

// Write implements conn.Stream: each request is posted on a goroutine of
// its own; a notification or response is posted here, and Write goes on
// once the server has accepted it.
func (t *httpClientStream) Write(frames []byte) error {
	for len(frames) >= 4 {
		n := int(binary.BigEndian.Uint32(frames))
		msg := frames[4 : 4+n]
		frames = frames[4+n:]
		if err := t.send(msg); err != nil {
			return err
		}
	}
	return nil
}

func (t *httpClientStream) send(msg []byte) error {
	if err := t.ended(); err != nil {
		return err
	}
	msgs, _, err := t.scan.Scan(msg)
	if err != nil || len(msgs) != 1 {
		return t.post(msg, nil) // not ours to judge: the server answers
	}
	m := msgs[0]
	h := t.modernHeaders(&m)
	if m.Kind == codec.KindRequest {
		id := append([]byte(nil), m.ID...)
		body := append([]byte(nil), msg...)
		pc := &pendingCall{ctx: t.ctx}
		if h != nil { // stateless: the POST ends when the call is cancelled
			pc.ctx, pc.abort = context.WithCancel(t.ctx)
			t.validated.ask(pc, validatorKey(&m), h)
		}
		t.calls.Store(string(id), pc)
		t.wg.Go(func() {
			if pc.abort != nil {
				defer pc.abort()
			}
			select { // here, not in Write: notifications and responses go on
			case t.slots <- struct{}{}:
			case <-t.ctx.Done():
				t.calls.Delete(string(id))
				t.failCall(id, ErrClosedTransport)
				return
			}
			defer func() { <-t.slots }()
			t.request(pc, body, id, h)
		})
		return nil
	}
	if m.Kind == codec.KindNotification && string(m.Method) == "notifications/cancelled" {
		var p mcp.CancelledParams
		if codec.Unmarshal(m.Params, &p) == nil {
			if c, ok := t.calls.Load(string(p.RequestID)); ok {
				pc := c.(*pendingCall)
				pc.cancelled.Store(true)
				if pc.abort != nil {
					// A stateless version cancels a request by closing
					// its response, not by a notification.
					pc.abort()
					return nil
				}
			}
		}
	}
	return t.post(msg, h)
}

// pendingCall is a request posted and not answered yet.
type pendingCall struct {
	cancelled atomic.Bool        // the client cancelled it
	ctx       context.Context    // its POST's
	abort     context.CancelFunc // ends its POST (stateless versions); nil under the others
	key       string             // its result's key in validated (stateless versions); "" under the others
	kept      validated          // the result it asked to revalidate (If-None-Match), if any
}

// ErrClosedTransport is returned when sending on a closed HTTP transport.
var ErrClosedTransport = errors.New("mcp: the HTTP transport is closed")

// post sends a notification or a response and waits for the server to
// accept it; any messages the server answers with are delivered. One the
// server refuses, or that cannot reach it, is dropped: only a session the
// server no longer knows ends the stream.
func (t *httpClientStream) post(msg []byte, h http.Header) error {
	resp, err := t.do(t.ctx, http.MethodPost, msg, "", h)
	if err != nil {
		return nil
	}
	defer drain(resp)
	switch resp.StatusCode {
	case http.StatusAccepted:
	case http.StatusOK:
		t.consume(resp, nil, nil)
	default:
		if err := t.statusError(resp); errors.Is(err, ErrSessionNotFound) {
			return err
		}
	}
	return nil
}

// request posts a request and delivers what comes back, resuming the
// event stream if it breaks before the answer came. Every way it fails
// ends the call with an error response of its own making.
func (t *httpClientStream) request(pc *pendingCall, msg, id []byte, h http.Header) {
	defer t.calls.Delete(string(id))
	resp, err := t.do(pc.ctx, http.MethodPost, msg, "", h)
	if err != nil {
		t.failCall(id, err)
		return
	}
	defer drain(resp)
	switch {
	case resp.StatusCode == http.StatusNotModified && t.notModified(pc, id):
	case resp.StatusCode == http.StatusAccepted: // cancelled meanwhile
	case resp.StatusCode != http.StatusOK:
		t.failCall(id, t.statusError(resp))
	case !t.consume(resp, id, pc):
		t.failCall(id, errStreamLost)
	}
}

// errStreamLost ends a call whose stream broke and could not be resumed.
var errStreamLost = errors.New("mcp: the response's event stream broke and could not be resumed")

// consume delivers what a 200 response brings: a JSON message, or an
// event stream (resumed as long as it breaks before the answer to id, if
// any, came). It reports whether that answer came (true without an id).
// A JSON answer to pc (if not nil) with an ETag is kept for revalidation.
func (t *httpClientStream) consume(resp *http.Response, id []byte, pc *pendingCall) bool {
	if !strings.EqualFold(httpjson.MediaType(resp.Header.Get("Content-Type")), "text/event-stream") {
		body, err := codec.ReadBody(resp.Body, t.max, nil)
		if err != nil || len(bytes.TrimSpace(body)) == 0 {
			return id == nil
		}
		if pc != nil && pc.key != "" {
			if tag := resp.Header.Get("Etag"); tag != "" {
				t.validated.keep(pc.key, tag, body)
			}
		}
		t.deliver(body)
		return true
	}
	r := newSSEReader(resp.Body, t.max)
	got, _ := t.events(r, id)
	if got || id == nil {
		return got
	}
	return t.resume(r.lastID, r.retry, id)
}

// events delivers the data of each event r reads, and reports whether the
// answer to id came (it ends the loop) and whether any event came.
func (t *httpClientStream) events(r *sseReader, id []byte) (got, any bool) {
	for {
		ev, err := r.Next()
		if err != nil {
			return false, any
		}
		any = true
		if len(bytes.TrimSpace(ev.Data)) == 0 { // a priming event
			continue
		}
		msg := append([]byte(nil), ev.Data...)
		answers := id != nil && t.answers(msg, id)
		if !t.deliver(msg) {
			return false, any
		}
		if answers {
			return true, true
		}
	}
}

// answers reports whether msg is the response to the request id.
func (t *httpClientStream) answers(msg, id []byte) bool {
	sc, _ := t.scanners.Get().(*codec.Scanner)
	if sc == nil {
		sc = codec.NewScanner(nil)
	}
	defer t.scanners.Put(sc)
	msgs, _, err := sc.Scan(msg)
	if err != nil || len(msgs) != 1 {
		return false
	}
	k := msgs[0].Kind
	return (k == codec.KindResult || k == codec.KindError) && bytes.Equal(msgs[0].ID, id)
}

// resume GETs the stream of event last again until the answer to id
// comes, the request was cancelled, or MaxRetries attempts in a row bring
// nothing.
func (t *httpClientStream) resume(last string, retry time.Duration, id []byte) bool {
	for misses := 0; last != "" && misses < t.retry; {
		if c, ok := t.calls.Load(string(id)); ok && c.(*pendingCall).cancelled.Load() {
			return true // cancelled: the server sends no answer
		}
		if !t.sleep(backoff(retry, misses)) {
			return false
		}
		switch out, got := t.getStream(&last, &retry, id, nil); {
		case out == streamGone:
			return false
		case got:
			return true
		case out == streamRead:
			misses = 0
		default:
			misses++
		}
	}
	return false
}

// streamOutcome is what one GET of the event stream came to.
type streamOutcome uint8

const (
	streamMissed streamOutcome = iota // no stream, or one that brought no event
	streamRead                        // a stream that brought events
	streamGone                        // never again: the session is gone, the server offers no stream (405), or the transport ended
)

// getStream GETs the event stream from *last on and reads it to its end,
// or until the answer to id (if set) comes, which got reports. It moves
// *last and *retry on as the server's events say. answered, if not nil,
// is called once the GET has its answer (or failed), before the events
// are read.
func (t *httpClientStream) getStream(last *string, retry *time.Duration, id []byte, answered func()) (out streamOutcome, got bool) {
	resp, err := t.do(t.ctx, http.MethodGet, nil, *last, nil)
	if answered != nil {
		answered()
	}
	switch {
	case err != nil && t.ctx.Err() != nil:
		return streamGone, false
	case err != nil:
		return streamMissed, false
	case resp.StatusCode == http.StatusMethodNotAllowed:
		drain(resp)
		return streamGone, false
	case resp.StatusCode != http.StatusOK:
		err := t.statusError(resp)
		drain(resp)
		if errors.Is(err, ErrSessionNotFound) {
			return streamGone, false
		}
		return streamMissed, false
	}
	r := newSSEReader(resp.Body, t.max)
	r.lastID = *last
	got, any := t.events(r, id)
	drain(resp)
	*last = r.lastID
	if r.retry > 0 {
		*retry = r.retry
	}
	if any {
		return streamRead, got
	}
	return streamMissed, got
}

// backoff is the delay before attempt misses+1: the server's retry (else
// 1s), doubled per miss, up to 30s.
func backoff(retry time.Duration, misses int) time.Duration {
	if retry <= 0 {
		retry = time.Second
	}
	if retry > 30*time.Second { // a server's retry is bounded too
		return 30 * time.Second
	}
	for range misses {
		if retry *= 2; retry >= 30*time.Second {
			return 30 * time.Second
		}
	}
	return retry
}

// sleep waits d, or reports false once the stream ends.
func (t *httpClientStream) sleep(d time.Duration) bool {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-t.ctx.Done():
		return false
	}
}

// listen holds the session's standalone GET stream open, resuming it when
// it breaks, until the stream ends, the server says it offers none (405),
// or MaxRetries attempts in a row fail.
func (t *httpClientStream) listen() {
	defer t.listened()
	last, retry := "", time.Duration(0)
	for misses := 0; misses < t.retry; {
		if misses > 0 && !t.sleep(backoff(retry, misses-1)) {
			return
		}
		out, _ := t.getStream(&last, &retry, nil, t.listened)
		switch out {
		case streamGone:
			return
		case streamRead:
			misses = 0
		}
		misses++ // a stream that ended is resumed after the retry delay
	}
}

// maxListenWait bounds how long Connect waits for the server to answer
// the session's GET: a server may hold the answer's headers back until it
// has an event to send.
const maxListenWait = time.Second

// awaitListening waits until the server answered listen's first GET,
// ctx ends, the stream ends, or maxListenWait passed.
func (t *httpClientStream) awaitListening(ctx context.Context) {
	tm := time.NewTimer(maxListenWait)
	defer tm.Stop()
	select {
	case <-t.listening:
	case <-ctx.Done():
	case <-t.ctx.Done():
	case <-tm.C:
	}
}

// do sends one request, for as long as ctx lasts, with the transport's
// headers; last, if set, is
// the Last-Event-ID of a GET. modern, if not nil, are the headers of a
// message of a stateless version (modernHeaders): they are sent instead
// of the session's, and a session id the server answers with is not
// taken (those versions have no sessions).
func (t *httpClientStream) do(ctx context.Context, method string, body []byte, last string, modern http.Header) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, t.url, rd)
	if err != nil {
		return nil, err
	}
	setHeaders(req, t.header)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	} else {
		req.Header.Set("Accept", "text/event-stream")
	}
	if modern != nil {
		for k, v := range modern {
			req.Header[k] = v
		}
	} else {
		if s := t.session.Load(); s != nil {
			req.Header.Set(headerSession, *s)
		}
		if v := t.version.Load(); v != nil {
			req.Header.Set(headerVersion, *v)
		}
	}
	if last != "" {
		req.Header.Set(headerLastEventID, last)
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return nil, err
	}
	if s := resp.Header.Get(headerSession); s != "" && modern == nil && t.session.Load() == nil {
		t.session.CompareAndSwap(nil, &s)
	}
	return resp, nil
}

// statusError turns a response other than 200 and 202 into an error
// (responseError). 404 on a session means the server no longer knows it:
// the stream fails with ErrSessionNotFound.
func (t *httpClientStream) statusError(resp *http.Response) error {
	if resp.StatusCode == http.StatusNotFound && t.session.Load() != nil {
		t.failSession(ErrSessionNotFound)
		return ErrSessionNotFound
	}
	if t.session.Load() == nil {
		t.refused.CompareAndSwap(0, int32(resp.StatusCode))
	}
	return responseError(resp)
}

// setHeaders adds the transport's extra headers to req.
func setHeaders(req *http.Request, h http.Header) {
	for k, v := range h {
		req.Header[k] = v
	}
}

// responseError turns a response other than 200 and 202 into an error:
// the JSON-RPC error it carries (with its data, else data holding the
// status: a -32022 keeps the versions it lists), or a
// *transport.HTTPStatusError naming the status and the URL.
func responseError(resp *http.Response) error {
	body, _ := codec.ReadBody(resp.Body, 64<<10, nil)
	var we struct {
		Error *struct {
			Code    codec.Code `json:"code"`
			Message string     `json:"message"`
			Data    codec.Raw  `json:"data"`
		} `json:"error"`
	}
	if codec.Unmarshal(body, &we) != nil || we.Error == nil {
		return transport.NewHTTPStatusError(resp)
	}
	e := codec.NewError(we.Error.Code, "HTTP "+strconv.Itoa(resp.StatusCode)+": "+we.Error.Message)
	if k := codec.KindOf(we.Error.Data); len(we.Error.Data) > 0 && k != codec.ValueNull {
		return e.WithData(we.Error.Data)
	}
	return e.WithData(map[string]int{"status": resp.StatusCode})
}

// failSession ends the stream with err, and forgets the session: Next
// returns err.
func (t *httpClientStream) failSession(err error) {
	t.fail(err, func() { t.session.Store(nil) })
}

// Negotiated implements mcp.ClientTransport: later requests carry the version.
func (t *httpClientStream) Negotiated(version string) { t.version.Store(&version) }

// Opened implements mcp.ClientTransport: the GET stream starts.
func (t *httpClientStream) Opened() { t.wg.Go(t.listen) }

// closeTimeout bounds the DELETE that ends a session at the server.
const closeTimeout = 5 * time.Second

// Close implements conn.Stream: it ends the session at the server
// (DELETE), stops every request and waits for the stream's goroutines.
func (t *httpClientStream) Close() error {
	t.once.Do(func() {
		if s := t.session.Load(); s != nil {
			ctx, cancel := context.WithTimeout(t.ctx, closeTimeout)
			req, err := http.NewRequestWithContext(ctx, http.MethodDelete, t.url, nil)
			if err == nil {
				setHeaders(req, t.header)
				req.Header.Set(headerSession, *s)
				if v := t.version.Load(); v != nil {
					req.Header.Set(headerVersion, *v)
				}
				if resp, err := t.client.Do(req); err == nil {
					drain(resp)
				}
			}
			cancel()
		}
		t.cancel()
		t.shut()
		t.wg.Wait()
		if t.own {
			t.client.CloseIdleConnections()
		}
	})
	return nil
}

// drain reads a little of what is left of a response, so that its
// connection can be reused, and closes it.
func drain(resp *http.Response) {
	io.CopyN(io.Discard, resp.Body, 4<<10)
	resp.Body.Close()
}
