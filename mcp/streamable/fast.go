package streamable

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/valyala/fasthttp"
)

// ServeFastHTTP serves the endpoint on github.com/valyala/fasthttp: it is
// a fasthttp.RequestHandler (serve it with transport.NewFastHTTPServer,
// alone or as a route of a fasthttp router). The same Handler may serve
// net/http and fasthttp at once: one session registry, one set of
// Options, one host and origin policy, the same CORS, Middleware, limits
// and statuses, and answers byte for byte the same (the tests run the
// package's HTTP contract against both servers).
//
// What differs is how a request reaches that logic, and it is why the
// choice exists: net/http writes each response with a system call of its
// own and watches every connection with a goroutine of its own while a
// request is served; fasthttp parses into state it reuses, and writes
// the answers of pipelined requests together. Each fasthttp request is
// shown to the handler (and to Options.Middleware) as an *http.Request
// and an http.ResponseWriter, reused from request to request (no
// allocation for them once a request's header strings repeat the last
// one's): a JSON answer is written to the response with its
// Content-Length, on fasthttp's connection goroutine, with no goroutine
// of its own. An event stream is written once the handler has returned,
// by fasthttp's stream writer (fasthttp.Response.SetBodyStreamWriter),
// with a goroutine per open stream watching the connection.
//
// The differences a caller may see:
//   - The request and the response writer Middleware is given are valid
//     only until it returns, as fasthttp's RequestCtx is: a middleware
//     must not keep them. A middleware that wraps the writer must let it
//     be unwrapped (an Unwrap method, as http.ResponseController expects),
//     or an event stream cannot be started through it.
//   - The request's context is not cancelled when the client goes away
//     while a POST is served: that is noticed when its answer is written.
//     An event stream's context is (the connection is watched while it is
//     open).
//   - A body is read whole by fasthttp before the handler runs, within the
//     server's ReadTimeout and MaxRequestBodySize
//     (transport.NewFastHTTPServer's bounds, answered 400 and 413 as
//     here); Options.ReadTimeout does not apply, and a MaxBodyBytes over
//     the server's MaxRequestBodySize needs that raised. Options.WriteTimeout
//     bounds each write of an event stream as on net/http.
func (h *Handler) ServeFastHTTP(rc *fasthttp.RequestCtx) {
	x, _ := fastExchanges.Get().(*fastExchange)
	if x == nil {
		x = &fastExchange{hdr: http.Header{}}
		x.w.hdr = http.Header{}
	}
	x.w.reset(rc)
	h.ServeHTTP(&x.w, x.request(rc))
	if !x.w.wrote { // net/http answers 200 to a handler that wrote nothing
		x.w.WriteHeader(http.StatusOK)
	}
	if x.w.streamed { // the stream outlives the request: its state is not reused
		return
	}
	x.w.rc = nil
	x.body.Reset(nil)
	fastExchanges.Put(x)
}

// fastExchanges are the fastExchanges of requests done, kept with the
// strings of their headers, which the next request on the same kind of
// connection most often repeats.
var fastExchanges sync.Pool

// fastExchange shows one fasthttp request as net/http's request and
// response writer. The request is made once, with a context carrying its
// local address (http.LocalAddrContextKey, which HostPolicy reads), and
// its fields are set again for each request; the strings of the last
// request's method, path, host, peer and headers are kept, and used again
// when the next one has the same bytes.
type fastExchange struct {
	w     fastWriter
	r     *http.Request
	local net.Addr // the address r's context carries
	url   url.URL
	body  fastBody
	hdr   http.Header
	pairs []headerPair // the last request's headers, in order

	remote    net.Addr
	remoteStr string
}

// headerPair is a header line of the last request: its value is a slice
// of its own, put in the header map as it is.
type headerPair struct {
	key string
	val []string
}

// fastBody is a request's body, read from fasthttp's buffer.
type fastBody struct{ bytes.Reader }

// Close implements io.Closer.
func (*fastBody) Close() error { return nil }

// request returns rc as an *http.Request, valid until the handler
// returns.
func (x *fastExchange) request(rc *fasthttp.RequestCtx) *http.Request {
	if local := rc.LocalAddr(); x.r == nil || !sameAddr(local, x.local) {
		x.local = local
		ctx := context.WithValue(context.Background(), http.LocalAddrContextKey, local)
		x.r = (&http.Request{}).WithContext(ctx)
	}
	r := x.r
	r.Method = reuse(r.Method, rc.Method())
	x.url.Path = reuse(x.url.Path, rc.Path())
	x.url.RawQuery = reuse(x.url.RawQuery, rc.URI().QueryString())
	r.URL = &x.url
	r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/1.1", 1, 1
	if !rc.Request.Header.IsHTTP11() {
		r.Proto, r.ProtoMinor = "HTTP/1.0", 0
	}
	r.RequestURI = reuse(r.RequestURI, rc.RequestURI())
	r.Host = reuse(r.Host, rc.Host())
	if remote := rc.RemoteAddr(); remote != x.remote {
		x.remote, x.remoteStr = remote, remote.String()
	}
	r.RemoteAddr = x.remoteStr
	x.fillHeader(rc)
	r.Header = x.hdr
	body := rc.PostBody()
	x.body.Reset(body)
	r.Body, r.ContentLength = &x.body, int64(len(body))
	r.TLS = nil
	if rc.IsTLS() {
		r.TLS = rc.TLSConnectionState()
	}
	r.Close = rc.Request.Header.ConnectionClose()
	r.Form, r.PostForm, r.MultipartForm, r.Trailer, r.TransferEncoding, r.GetBody = nil, nil, nil, nil, nil, nil
	r.Response, r.Pattern = nil, ""
	return r
}

// fillHeader sets x.hdr to rc's header lines, Host aside (it is
// Request.Host, as on net/http).
func (x *fastExchange) fillHeader(rc *fasthttp.RequestCtx) {
	clear(x.hdr)
	i := 0
	for k, v := range rc.Request.Header.All() {
		if string(k) == "Host" {
			continue
		}
		if i == len(x.pairs) {
			x.pairs = append(x.pairs, headerPair{})
		}
		p := &x.pairs[i]
		i++
		p.key = reuse(p.key, k)
		if p.val == nil || p.val[0] != string(v) {
			p.val = []string{string(v)} // the old one may be kept by a handler
		}
		n := len(x.hdr)
		x.hdr[p.key] = p.val[:1:1] // no lookup first: a name most often comes once
		if len(x.hdr) == n {       // it came before: all its lines' values
			x.hdr[p.key] = valuesOf(x.pairs[:i], p.key)
		}
	}
}

// valuesOf returns the values of the header lines named key, in order.
func valuesOf(pairs []headerPair, key string) []string {
	var vs []string
	for _, p := range pairs {
		if p.key == key {
			vs = append(vs, p.val[0])
		}
	}
	return vs
}

// reuse returns old when it holds b's bytes, else b as a new string.
func reuse(old string, b []byte) string {
	if old == string(b) {
		return old
	}
	return string(b)
}

// sameAddr reports whether a and b are the same address.
func sameAddr(a, b net.Addr) bool {
	if a == b {
		return true
	}
	if ta, ok := a.(*net.TCPAddr); ok {
		tb, ok := b.(*net.TCPAddr)
		return ok && ta.Port == tb.Port && ta.Zone == tb.Zone && ta.IP.Equal(tb.IP)
	}
	return a != nil && b != nil && a.Network() == b.Network() && a.String() == b.String()
}

// fastWriter is a fasthttp response as an http.ResponseWriter: the
// header is copied to the response by WriteHeader, what is written is
// appended to its body (sent with its Content-Length), and an event
// stream is handed to fasthttp's stream writer (stream).
type fastWriter struct {
	rc       *fasthttp.RequestCtx
	hdr      http.Header
	wrote    bool
	streamed bool // the response is an event stream
}

func (w *fastWriter) reset(rc *fasthttp.RequestCtx) {
	w.rc, w.wrote, w.streamed = rc, false, false
	clear(w.hdr)
}

// Header implements http.ResponseWriter.
func (w *fastWriter) Header() http.Header { return w.hdr }

// WriteHeader implements http.ResponseWriter: the first call sets the
// status and the header; a Connection: close ends the connection after
// the response.
func (w *fastWriter) WriteHeader(code int) {
	if w.wrote {
		return
	}
	w.wrote = true
	rh := &w.rc.Response.Header
	rh.SetNoDefaultContentType(true)
	for k, vs := range w.hdr {
		switch k {
		case "Content-Type":
			rh.SetContentType(vs[0])
		case "Connection":
			if len(vs) > 0 && strings.EqualFold(vs[0], "close") {
				w.rc.SetConnectionClose()
			}
		default:
			for _, v := range vs {
				rh.Add(k, v)
			}
		}
	}
	w.rc.SetStatusCode(code)
}

// Write implements http.ResponseWriter: b is copied to the response's
// body.
func (w *fastWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	w.rc.Response.AppendBody(b)
	return len(b), nil
}

// fastWriterOf returns the fastWriter w is, or wraps (Unwrap), or nil.
func fastWriterOf(w http.ResponseWriter) *fastWriter {
	for {
		switch x := w.(type) {
		case *fastWriter:
			return x
		case interface{ Unwrap() http.ResponseWriter }:
			w = x.Unwrap()
		default:
			return nil
		}
	}
}
