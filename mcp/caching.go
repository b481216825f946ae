package mcp

import (
	"strconv"
	"time"
)

// CacheScope says who may keep and reuse a cacheable result of protocol
// version 2026-07-28 (its cacheScope member): CachePrivate or
// CachePublic.
type CacheScope string

const (
	// CachePrivate: the result may be reused only within the
	// authorization context that asked for it (Cache-Control: private).
	CachePrivate CacheScope = "private"
	// CachePublic: the result holds nothing specific to a user; any
	// client, gateway or shared cache may serve it to anyone
	// (Cache-Control: public).
	CachePublic CacheScope = "public"
)

// CacheHint is what a cacheable result of protocol version 2026-07-28
// tells its client: how long it stays fresh (ttlMs) and who may share it
// (cacheScope). The zero value is fresh for no time, private.
type CacheHint struct {
	// TTL is how long the result may be considered fresh, sent in whole
	// milliseconds (rounded down); zero or less: stale at once (ttlMs 0).
	TTL time.Duration
	// Scope is CachePublic or CachePrivate; anything else, the empty
	// string included, is sent as CachePrivate.
	Scope CacheScope
}

// CachingOptions are the cache hints the server puts on the results of
// protocol version 2026-07-28 that the specification calls cacheable: a
// hint per method, and Default for the methods given none. The results
// of the older versions carry no hint (their schemas have none).
type CachingOptions struct {
	// Default is the hint of the methods whose field below is nil.
	Default CacheHint
	// Discover is the hint of server/discover.
	Discover *CacheHint
	// Tools, Prompts, Resources and ResourceTemplates are the hints of
	// every page of tools/list, prompts/list, resources/list and
	// resources/templates/list.
	Tools, Prompts, Resources, ResourceTemplates *CacheHint
	// ResourceRead is the hint of resources/read. A ResourceHandler may
	// set its result's TTLMs or CacheScope instead, for that read alone.
	ResourceRead *CacheHint
}

// TTL returns d in whole milliseconds (rounded down, never below zero),
// for a result's TTLMs.
func TTL(d time.Duration) *int64 {
	ms := max(d.Milliseconds(), 0)
	return &ms
}

// cacheHint is a CacheHint as a result's members, encoded once.
type cacheHint struct {
	ttl    time.Duration // whole milliseconds, >= 0
	public bool
	ttlMs  []byte // `"ttlMs":<n>,`
	scope  []byte // `"cacheScope":"<scope>",`
}

// Hints shared by every server: the default, and the two scopes' members.
var (
	privateScope = []byte(`"cacheScope":"private",`)
	publicScope  = []byte(`"cacheScope":"public",`)
	noHint       = newCacheHint(0, false)
)

func newCacheHint(ms int64, public bool) *cacheHint {
	ms = max(ms, 0)
	h := &cacheHint{ttl: time.Duration(ms) * time.Millisecond, public: public, scope: privateScope}
	if public {
		h.scope = publicScope
	}
	h.ttlMs = strconv.AppendInt([]byte(`"ttlMs":`), ms, 10)
	h.ttlMs = append(h.ttlMs, ',')
	return h
}

func (h CacheHint) encoded() *cacheHint {
	return newCacheHint(h.TTL.Milliseconds(), h.Scope == CachePublic)
}

// hints are a server's cacheHints per cacheable method, made once by
// NewServer.
type hints struct {
	discover, tools, prompts, resources, templates, read *cacheHint
}

func newHints(o *CachingOptions) hints {
	if o == nil {
		return hints{noHint, noHint, noHint, noHint, noHint, noHint}
	}
	def := o.Default.encoded()
	pick := func(h *CacheHint) *cacheHint {
		if h == nil {
			return def
		}
		return h.encoded()
	}
	return hints{pick(o.Discover), pick(o.Tools), pick(o.Prompts), pick(o.Resources),
		pick(o.ResourceTemplates), pick(o.ResourceRead)}
}

// of returns the hint of a cacheable method.
func (h *hints) of(method string) *cacheHint {
	switch method {
	case "tools/list":
		return h.tools
	case "prompts/list":
		return h.prompts
	case "resources/list":
		return h.resources
	case "resources/templates/list":
		return h.templates
	case "resources/read":
		return h.read
	}
	return h.discover
}

// readHint returns the hint of a read whose result r set TTLMs or
// CacheScope itself (the server's hint def fills in what it did not
// set), and clears them in r: the hint goes in front of the result, where
// the transports look for it.
func readHint(r *ReadResourceResult, def *cacheHint) *cacheHint {
	if r.TTLMs == nil && r.CacheScope == "" {
		return def
	}
	ms, public := def.ttl.Milliseconds(), def.public
	if r.TTLMs != nil {
		ms = *r.TTLMs
	}
	if r.CacheScope != "" {
		public = r.CacheScope == CachePublic
	}
	r.TTLMs, r.CacheScope = nil, ""
	return newCacheHint(ms, public)
}

// hinted is a result with its own cache hint, which replaces the
// method's (readHint).
type hinted struct {
	v    any
	hint *cacheHint
}
