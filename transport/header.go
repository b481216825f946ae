package transport

import (
	"bytes"
	"context"
	"net/http"
	"net/textproto"
	"sync"
)

type headerKey struct{}

// WithHeader returns ctx carrying h, the header of the HTTP request (or
// WebSocket upgrade) a message came in with. The HTTP and WebSocket
// handlers put it in the context their sessions' handlers see, so that
// middleware can read credentials and trace context.
func WithHeader(ctx context.Context, h http.Header) context.Context {
	return context.WithValue(ctx, headerKey{}, h)
}

// HeaderFromContext returns the header WithHeader put in ctx, or nil when
// the message came over a transport without headers (stdio, TCP, Unix).
// The header must not be modified.
func HeaderFromContext(ctx context.Context) http.Header {
	switch h := ctx.Value(headerKey{}).(type) {
	case http.Header:
		return h
	case *rawHeader:
		return h.header()
	}
	return nil
}

// rawHeader is a request's header as it came in ("Name: value" lines, CRLF
// ended), parsed into an http.Header the first time a handler asks: most
// sessions never do, and copying the bytes costs far less than building
// the map.
type rawHeader struct {
	raw  []byte
	once sync.Once
	h    http.Header
}

// newRawHeader keeps a copy of raw, a header's lines.
func newRawHeader(raw []byte) *rawHeader { return &rawHeader{raw: bytes.Clone(raw)} }

func (r *rawHeader) header() http.Header {
	r.once.Do(func() {
		r.h = http.Header{}
		for line := range bytes.Lines(r.raw) {
			name, value, ok := bytes.Cut(line, []byte(":"))
			if !ok {
				continue
			}
			key := textproto.CanonicalMIMEHeaderKey(string(bytes.TrimSpace(name)))
			r.h[key] = append(r.h[key], string(bytes.TrimSpace(value)))
		}
	})
	return r.h
}
