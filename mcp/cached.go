package mcp

import (
	"bytes"
	"context"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// The server's response cache (ServerOptions.ResponseCache) keeps the
// results of requests of a stateless version to the cacheable methods
// whose hint is public and fresh for some time, for that time, keyed by
// method and params (package cache): identical requests within the ttl
// are answered from it, and identical concurrent ones run the handler
// once. A private result is never kept: the server cannot tell one
// authorization context from another, and a private result must not
// cross them. Results of the older versions are never kept (they depend
// on the session's version, which the key lacks), nor those of requests
// carrying inputResponses or requestState (their results depend on more
// than the key). A change to a list drops its entries, and a change to
// the resources or templates those of resources/read too.

// mrtrMembers are the params members of a retried multi-round-trip
// request, whose result must not be cached.
var mrtrMembers = [][]byte{[]byte(`"inputResponses"`), []byte(`"requestState"`)}

// completeHead is how a final result of a stateless version begins
// (completeResult puts resultType first).
var completeHead = []byte(`{"resultType":"complete",`)

// cachesResult reports whether the result of req, a request of ss under
// gate g, goes through the server's response cache.
func (ss *ServerSession) cachesResult(g gate, req *router.Request) bool {
	if ss.srv.cache == nil || g&cacheable == 0 || !ss.stateless() || req.IsNotification() {
		return false
	}
	for _, m := range mrtrMembers {
		if bytes.Contains(req.Params, m) {
			return false
		}
	}
	return true
}

// cachedResult answers req from the server's response cache, running
// run for it on a miss: run's result, completed as ss.result does and
// encoded, is kept for its hint's ttl when the hint is public.
func (ss *ServerSession) cachedResult(ctx context.Context, g gate, req *router.Request, run func() (any, error)) (any, error) {
	b, err := ss.srv.cache.DoFor(ctx, req.Method, req.Params, func() ([]byte, time.Duration, error) {
		res, err := run()
		v, err := ss.result(g, req.Method, res, err)
		if err != nil {
			return nil, 0, err
		}
		b, err := codec.AppendValue(nil, v)
		if err != nil {
			return nil, 0, err
		}
		var ttl time.Duration
		r, ok := v.(*statelessResult)
		if ok && r.hint != nil && r.hint.public && bytes.HasPrefix(b, completeHead) {
			ttl = r.hint.ttl // a final result: an interim one is not kept
		}
		return b, ttl, nil
	})
	if err != nil {
		return nil, err
	}
	return codec.Raw(b), nil
}

// dropCached removes the response cache's entries of these methods.
func (s *Server) dropCached(methods ...string) {
	if c := s.opts.ResponseCache; c != nil {
		for _, m := range methods {
			c.Invalidate(m)
		}
	}
}
