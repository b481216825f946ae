package transport

import (
	"context"
	"net/http"
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
	h, _ := ctx.Value(headerKey{}).(http.Header)
	return h
}
