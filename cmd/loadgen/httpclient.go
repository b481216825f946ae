package main

// loadgen's own HTTP/1.1 client, for http:// targets reached directly:
// JSON-RPC over HTTP POST and MCP Streamable HTTP. It costs a fraction of
// net/http's client per call, so that loadgen measures the server and not
// itself.
//
// A stream (httpStream) holds up to -depth keep-alive connections
// (lanes), each with at most one POST in flight, as a browser or wrk
// does: no pipelining. The fast path:
//
//   - WriteMessage takes an idle lane (or dials one, up to the bound) and
//     sends the request head and the message in one write, from a head
//     rendered once (again only when the MCP session id or version
//     arrives).
//   - Each lane's goroutine, started with it and living as long as it,
//     reads the answers of its connection into pooled buffers: a JSON body
//     is queued for ReadMessage as it is; an event stream's (MCP) events
//     are queued one by one. The lane is idle again before its answers are
//     queued, so a caller that sends once it has read an answer finds it
//     idle.
//
// The rare path: an answer the fast path does not serve (an error
// status, a content type it does not expect, an event stream that ended
// before the answer, a body over the frame limit) is handed, as read, to
// the engine's own client stream (transport.NewHTTPStream or
// streamable.NewClientStream) through a RoundTripper that replays it
// (httpreplay.go): that client maps it to answers exactly as it would
// have had it fetched it itself, and resumes an event stream with GET.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
)

// laneReadSize is the size of a lane's read buffer: it bounds the head of
// an answer too.
const laneReadSize = 16 << 10

// httpStream is a conn.MessageConn over loadgen's own HTTP/1.1 client.
// WriteMessage and flush are called by one goroutine at a time (the
// stream's writer), ReadMessage by one (its reader); Close by any.
type httpStream struct {
	url  string // as given, for the rare path's requests
	addr string // host:port to dial
	mcp  bool   // Streamable HTTP: session and version headers, events
	// bodyMax bounds one answer's body (codec's default frame limit).
	bodyMax int

	headMu sync.Mutex             // held to render head
	head   atomic.Pointer[[]byte] // the request head up to the Content-Length value
	fixed  []byte                 // its first part: the request line and fixed fields
	// session and version are MCP's: the session id the server gave, the
	// protocol version agreed on ("": not yet).
	session atomic.Pointer[string]
	version string

	idle    chan *lane    // lanes with room for a POST (listed)
	room    chan struct{} // a lane closed (one signal may stand for several)
	lanes   atomic.Int32
	laneMax int32   // lanes at most
	pipe    int     // POSTs in flight per lane at most
	touched []*lane // lanes with requests written to their out, not yet sent (the writer's)
	all     []*lane
	allMu   sync.Mutex

	in     chan answer
	last   *codec.Buffer // returned by the last ReadMessage; the reader's
	bodies codec.BufferPool

	rare *replay // the engine's own client, for the answers the fast path does not serve

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // the lanes' goroutines

	closeOnce sync.Once
	failOnce  sync.Once
	failed    chan struct{} // closed on the first failure of the transport
	err       error         // why; written before failed is closed
}

// answer is what ReadMessage returns next: a message, or a call's error.
type answer struct {
	b   *codec.Buffer
	err *conn.CallError
}

// newHTTPStream returns a stream of loadgen's HTTP client to u (an
// http:// URL) with posts POSTs in flight at most, pipe of them on each
// connection (HTTP/1.1 pipelining when above 1), header added to each
// request; mcp speaks Streamable HTTP. negotiated (MCP) is to be told the
// protocol version agreed on.
func newHTTPStream(u *url.URL, header http.Header, posts, pipe int, mcp bool) (s conn.Stream, negotiated func(string), err error) {
	extra, err := renderHeader(header, mcp)
	if err != nil {
		return nil, nil, err
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	accept := "application/json"
	if mcp {
		accept = "application/json, text/event-stream"
	}
	fixed := fmt.Appendf(nil, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: %s\r\n", u.RequestURI(), u.Host, accept)
	posts, pipe = max(posts, 1), max(pipe, 1)
	lanes := (posts + pipe - 1) / pipe
	hs := &httpStream{
		url:     u.String(),
		addr:    net.JoinHostPort(u.Hostname(), port),
		mcp:     mcp,
		bodyMax: codec.DefaultMaxFrameBytes,
		fixed:   append(fixed, extra...),
		idle:    make(chan *lane, lanes),
		room:    make(chan struct{}, 1),
		laneMax: int32(lanes),
		pipe:    pipe,
		in:      make(chan answer, lanes),
		failed:  make(chan struct{}),
	}
	hs.ctx, hs.cancel = context.WithCancel(context.Background())
	hs.renderHead()
	hs.rare = newReplay(hs, header, posts)
	return &httpFrames{conn.NewMessageStream(hs, nil), hs}, hs.negotiated, nil
}

// httpFrames is an httpStream as a conn.Stream: Write sends what each
// connection was given in one write.
type httpFrames struct {
	conn.Stream
	hs *httpStream
}

// Write implements conn.Stream.
func (f *httpFrames) Write(frames []byte) error {
	err := f.Stream.Write(frames)
	if ferr := f.hs.flush(); err == nil {
		err = ferr
	}
	return err
}

// renderHeader renders -H's fields as a request head holds them, leaving
// out those the stream sets itself (as net/http does with Host and the
// body's framing).
func renderHeader(h http.Header, mcp bool) ([]byte, error) {
	var b []byte
	for k, vs := range canonicalKeys(h) {
		switch k {
		case "Host", "Content-Length", "Transfer-Encoding", "Trailer", "Content-Type", "Accept":
			continue
		case "Mcp-Session-Id", "Mcp-Protocol-Version":
			if mcp {
				continue
			}
		}
		if !validField(k, false) {
			return nil, fmt.Errorf("header %q: not a valid HTTP field name", k)
		}
		for _, v := range vs {
			if !validField(v, true) {
				return nil, fmt.Errorf("header %s: not a valid HTTP field value: %q", k, v)
			}
			b = append(append(append(append(b, k...), ": "...), v...), "\r\n"...)
		}
	}
	return b, nil
}

// canonicalKeys copies h with its keys in canonical form.
func canonicalKeys(h http.Header) http.Header {
	c := make(http.Header, len(h))
	for k, v := range h {
		ck := http.CanonicalHeaderKey(k)
		c[ck] = append(c[ck], v...)
	}
	return c
}

// validField reports whether s may be a field's name (a token) or value
// (no control character but tab).
func validField(s string, value bool) bool {
	if !value && s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\t' && value:
		case c < ' ' || c == 0x7f:
			return false
		case !value && (c == ' ' || c == ':' || c >= 0x80):
			return false
		}
	}
	return true
}

// renderHead renders the request head from fixed, the session and the
// version.
func (s *httpStream) renderHead() {
	s.headMu.Lock()
	defer s.headMu.Unlock()
	h := append([]byte(nil), s.fixed...)
	if id := s.session.Load(); id != nil {
		h = append(append(append(h, "Mcp-Session-Id: "...), *id...), "\r\n"...)
	}
	if s.version != "" {
		h = append(append(append(h, "Mcp-Protocol-Version: "...), s.version...), "\r\n"...)
	}
	h = append(h, "Content-Length: "...)
	s.head.Store(&h)
}

// negotiated sends version with every later request (MCP).
func (s *httpStream) negotiated(version string) {
	s.headMu.Lock()
	s.version = version
	s.headMu.Unlock()
	s.renderHead()
	s.rare.negotiated(version)
}

// gotSession keeps the session id the server gave with an answer, the
// first one only.
func (s *httpStream) gotSession(id []byte) {
	if s.session.Load() != nil || len(id) == 0 || !validField(string(id), true) {
		return
	}
	v := string(id)
	if s.session.CompareAndSwap(nil, &v) {
		s.renderHead()
	}
}

// WriteMessage queues msg in a POST of its own on a connection with room
// for it; flush (httpFrames.Write) sends them. A notification or response
// of MCP's is sent at once and WriteMessage returns once the server has
// answered it, so that they reach the server in order (as the engine's
// client does).
func (s *httpStream) WriteMessage(msg []byte) error {
	select {
	case <-s.failed: // what is sent now would never be read
		return s.err
	default:
	}
	wait := s.mcp && requestID(msg, nil) == nil
	var l *lane
	for l == nil {
		var err error
		if l, err = s.lane(); err != nil {
			return err
		}
		l.mu.Lock()
		l.listed = false
		if l.dead {
			l.mu.Unlock()
			l = nil // it closed while listed: its goroutine counted it out
			continue
		}
		p := &l.posts[(l.first+l.n)%len(l.posts)]
		p.msg, p.wait = append(p.msg[:0], msg...), wait
		l.n++
		l.listed = l.n < len(l.posts)
		relist := l.listed
		l.mu.Unlock()
		if relist { // room for more: the others first
			s.idle <- l
		}
	}
	l.out = append(l.out, *s.head.Load()...)
	l.out = strconv.AppendInt(l.out, int64(len(msg)), 10)
	l.out = append(l.out, "\r\n\r\n"...)
	l.out = append(l.out, msg...)
	if !l.touched {
		l.touched = true
		s.touched = append(s.touched, l)
	}
	if !wait {
		return nil
	}
	if err := s.flush(); err != nil {
		return err
	}
	select {
	case <-l.done:
		return nil
	case <-s.failed:
		return s.err
	case <-s.ctx.Done():
		return net.ErrClosed
	}
}

// flush sends what WriteMessage queued, one write per connection.
func (s *httpStream) flush() error {
	var err error
	for i, l := range s.touched {
		if _, werr := l.nc.Write(l.out); werr != nil && err == nil {
			s.fail(werr)
			err = werr
		}
		l.out, l.touched = l.out[:0], false
		s.touched[i] = nil
	}
	s.touched = s.touched[:0]
	if err == nil {
		select {
		case <-s.failed: // the answers to what was sent will not be read
			err = s.err
		default:
		}
	}
	return err
}

// lane returns a listed lane (to be checked: it may have closed since),
// or one dialled if there are fewer than the bound, else waits for one.
func (s *httpStream) lane() (*lane, error) {
	for {
		select {
		case l := <-s.idle:
			return l, nil
		default:
		}
		if s.lanes.Load() < s.laneMax {
			return s.dial()
		}
		select {
		case l := <-s.idle:
			return l, nil
		case <-s.room:
			// a lane closed: dial another
		case <-s.failed:
			return nil, s.err
		case <-s.ctx.Done():
			return nil, net.ErrClosed
		}
	}
}

// dial opens a lane.
func (s *httpStream) dial() (*lane, error) {
	var d net.Dialer
	nc, err := d.DialContext(s.ctx, "tcp", s.addr)
	if err != nil {
		if s.ctx.Err() != nil {
			return nil, net.ErrClosed
		}
		s.fail(err)
		return nil, err
	}
	l := &lane{s: s, nc: nc, br: bufio.NewReaderSize(nc, laneReadSize), done: make(chan struct{}, 1), posts: make([]post, s.pipe)}
	s.allMu.Lock()
	s.all = append(s.all, l)
	s.allMu.Unlock()
	s.lanes.Add(1)
	s.wg.Go(l.run)
	return l, nil
}

// forget counts out a lane that has closed.
func (s *httpStream) forget(l *lane) {
	s.allMu.Lock()
	if i := slices.Index(s.all, l); i >= 0 {
		s.all = slices.Delete(s.all, i, i+1)
	}
	s.allMu.Unlock()
	s.lanes.Add(-1)
	select {
	case s.room <- struct{}{}:
	default:
	}
}

// ReadMessage returns the next answer: valid until the next call. Answers
// received come before the error that ended the stream.
func (s *httpStream) ReadMessage() ([]byte, error) {
	if s.last != nil {
		s.bodies.Put(s.last)
		s.last = nil
	}
	var a answer
	select {
	case a = <-s.in:
	case <-s.failed:
		select {
		case a = <-s.in:
		default:
			return nil, s.err
		}
	case <-s.ctx.Done():
		return nil, net.ErrClosed
	}
	if a.err != nil {
		return nil, a.err
	}
	s.last = a.b
	return a.b.B, nil
}

// Buffered reports whether an answer is waiting.
func (s *httpStream) Buffered() bool { return len(s.in) > 0 }

// deliver queues an answer for ReadMessage, or drops it once the stream is
// closed.
func (s *httpStream) deliver(a answer) {
	select {
	case s.in <- a:
	case <-s.ctx.Done():
		if a.b != nil {
			s.bodies.Put(a.b)
		}
	}
}

// fail ends the stream with err (the first failure only): a POST that got
// no answer, as a broken socket ends a TCP stream.
func (s *httpStream) fail(err error) {
	s.failOnce.Do(func() {
		s.err = err
		close(s.failed)
	})
}

// errClosedByPeer ends a lane the server closed with a request in flight.
var errClosedByPeer = errors.New("the server closed the connection before answering")

// Close ends the MCP session at the server (DELETE), closes the
// connections and waits for their goroutines.
func (s *httpStream) Close() error {
	s.closeOnce.Do(func() {
		if id := s.session.Load(); id != nil {
			s.headMu.Lock()
			version := s.version
			s.headMu.Unlock()
			s.rare.endSession(*id, version)
		}
		s.cancel()
		s.allMu.Lock()
		for _, l := range s.all {
			l.nc.Close()
		}
		s.allMu.Unlock()
		s.wg.Wait()
		s.rare.close()
	})
	return nil
}
