package demoserver

import (
	"bytes"
	"net"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/mcpwire/mcpwire/internal/pipenet"
)

// The front door of -http-server fast: fasthttp accepts every connection
// of the -listen address and serves /rpc (transport.FastHTTPHandler) and
// /mcp (streamable.Handler.ServeFastHTTP, the same handler net/http
// serves) itself; the first request for anything else moves its
// connection, that request first, to the net/http server of the other
// endpoints (/sse, /ws, and /rpc and /mcp too for a connection handed
// over), which serves it from then on. So /rpc and /mcp get fasthttp's
// speed, and every endpoint is served by the same handlers as with
// -http-server net: the same host/origin checks, limits and streams.
//
// What differs on a connection's first request, read by fasthttp: its
// header is bounded by fasthttp's read buffer (transport.NewFastHTTPServer:
// 8 KiB, against net/http's 64 KiB), and its whole body is read before it
// is handed over, within the same -read-timeout and body bound.

// The paths the front door serves itself.
const (
	rpcPath = "/rpc"
	mcpPath = "/mcp"
)

// front routes the requests of a fasthttp server: the front door at the
// -listen address, or, with no hand-off, the -fast-rpc server, which
// serves every path but /mcp as /rpc.
type front struct {
	rpc fasthttp.RequestHandler // POST /rpc and every other request to it
	mcp fasthttp.RequestHandler // every request to /mcp
	to  *handoff                // where other connections go; nil: to rpc
}

// serve is the front server's fasthttp.RequestHandler.
func (f *front) serve(rc *fasthttp.RequestCtx) {
	uri := rc.Request.Header.RequestURI()
	if i := bytes.IndexByte(uri, '?'); i >= 0 {
		uri = uri[:i]
	}
	switch string(uri) {
	case rpcPath:
		f.rpc(rc)
	case mcpPath:
		f.mcp(rc)
	default:
		if f.to == nil {
			f.rpc(rc)
			return
		}
		f.handOver(rc)
	}
}

// handOver gives rc's connection to the net/http server, with rc's
// request rewritten first in front of what the client sends next.
func (f *front) handOver(rc *fasthttp.RequestCtx) {
	req := replay(&rc.Request)
	rc.HijackSetNoResponse(true)
	rc.Hijack(func(c net.Conn) {
		f.to.give(&replayConn{Conn: c, pending: req})
	})
}

// replay returns req as a client would have sent it, byte for byte but
// for its body's framing: the request line and header lines as received,
// without Transfer-Encoding, Content-Length and Expect (fasthttp has read
// the body, and answered any 100-continue), then Content-Length and the
// body as read, if there is one. A request after which fasthttp would close the connection
// (one with both Content-Length and Transfer-Encoding, which may smuggle
// another: RFC 9112 §6.3) gets Connection: close first, so that net/http
// closes it too.
func replay(req *fasthttp.Request) []byte {
	h := &req.Header
	body := req.Body()
	b := make([]byte, 0, 96+len(h.RawHeaders())+len(body))
	b = append(b, h.Method()...)
	b = append(b, ' ')
	b = append(b, h.RequestURI()...)
	b = append(b, ' ')
	b = append(b, h.Protocol()...)
	b = append(b, "\r\n"...)
	if h.ConnectionClose() {
		b = append(b, "Connection: close\r\n"...)
	}
	for line := range bytes.Lines(h.RawHeaders()) {
		name, _, _ := bytes.Cut(line, []byte(":"))
		name = bytes.TrimSpace(name)
		if bytes.EqualFold(name, []byte("Transfer-Encoding")) || bytes.EqualFold(name, []byte("Content-Length")) ||
			bytes.EqualFold(name, []byte("Expect")) || len(name) == 0 {
			continue
		}
		b = append(b, bytes.TrimRight(line, "\r\n")...)
		b = append(b, "\r\n"...)
	}
	if len(body) > 0 { // none: no body (RFC 9112 §6.3)
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(body)), 10)
		b = append(b, "\r\n"...)
	}
	b = append(b, "\r\n"...)
	return append(b, body...)
}

// replayConn is a connection handed over: its reads return pending first.
type replayConn struct {
	net.Conn
	pending []byte
}

func (c *replayConn) Read(p []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// handoff is the net.Listener of the net/http server behind the front
// door: it accepts the connections the front hands over, and has the
// front door's address. Safe for concurrent use.
type handoff struct {
	*pipenet.Listener
	addr net.Addr
}

func newHandoff(addr net.Addr) *handoff {
	return &handoff{Listener: pipenet.Listen(), addr: addr}
}

// give hands c to the server's Accept, or closes it once the listener is
// closed.
func (l *handoff) give(c net.Conn) {
	if l.Give(c) != nil {
		c.Close()
	}
}

// Addr implements net.Listener: the front door's address.
func (l *handoff) Addr() net.Addr { return l.addr }
