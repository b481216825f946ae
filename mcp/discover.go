package mcp

import (
	"context"

	"github.com/mcpwire/mcpwire/router"
)

// DiscoverResult is the result of server/discover (2026-07-28): the
// protocol versions the server speaks, newest first (the stateless ones,
// then those of initialize), what it declares under the request's
// version, and its instructions. On the wire it also carries resultType,
// ttlMs, cacheScope and the server's identity in _meta
// (MetaServerInfo), as every result of that version does.
type DiscoverResult struct {
	Meta              Meta                `json:"_meta,omitempty"`
	SupportedVersions []string            `json:"supportedVersions"`
	Capabilities      *ServerCapabilities `json:"capabilities"`
	Instructions      string              `json:"instructions,omitempty"`
	// TTLMs and CacheScope are the cache hints of protocol version
	// 2026-07-28 (see CachingOptions): how many milliseconds the result
	// stays fresh (nil: 0) and who may share it. Absent under the older
	// versions.
	TTLMs      *int64     `json:"ttlMs,omitempty"`
	CacheScope CacheScope `json:"cacheScope,omitempty"`
}

// discover serves server/discover, a method of the stateless versions
// alone: ss serves this one request.
func (s *Server) discover(_ context.Context, _ *ServerSession, _ *router.Request, _ *struct{}) (any, error) {
	caps := s.statelessCapabilities()
	return &DiscoverResult{
		SupportedVersions: allVersions,
		Capabilities:      &caps,
		Instructions:      s.opts.Instructions,
	}, nil
}
