package demoserver

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/cache"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
)

// demoOptions choose what newDemo builds.
type demoOptions struct {
	// server is the base of the MCP server's options: its tasks' and the
	// stores shareThrough set (nil: none, the tasks taskOptions). newDemo
	// sets the rest on a copy.
	server *mcp.ServerOptions
	// conn is the base of every session's connection options (framing,
	// pool, logger).
	conn *conn.Options
	// pageSize bounds the items of one list answer (0: mcp's default).
	pageSize int
	// watchInterval is how often test://watched-resource changes while a
	// session is subscribed to it (0: defaultWatchInterval).
	watchInterval time.Duration
	// pooled puts every method of the demo's own on the pool, the cheap
	// ones the JSON-RPC specification's examples are too (-inline=false).
	pooled bool
	// keepAlive pings every session's client this often (0: never).
	keepAlive time.Duration
	// cache holds cached_sleep's answers (nil: none, cached_sleep runs
	// every call).
	cache *cache.Cache
	// guard is the middleware every call goes through (-auth-token,
	// -forbid, -rate, -v); nil: none.
	guard *guard
	// toolScopes are the scopes calls of tools need, by tool name
	// (-oauth-scopes).
	toolScopes map[string][]string
	// jsonrpc1 accepts JSON-RPC 1.0 objects on the sessions Bind makes
	// (-jsonrpc1).
	jsonrpc1 bool
	log      *slog.Logger
}

const defaultWatchInterval = time.Second

// demo is the demo server: one mcp.Server holding the conformance
// fixtures (fixtures_*.go) and, as plain JSON-RPC methods, the JSON-RPC
// specification's examples (methods.go). Safe for concurrent use.
type demo struct {
	srv   *mcp.Server
	log   *slog.Logger
	every time.Duration
	// watched is the version of test://watched-resource: it grows each
	// time the resource changes.
	watched atomic.Int64
	// runs counts the runs of cached_sleep's handler.
	runs atomic.Int64
	// elicitations numbers the URL mode elicitations; authorized holds,
	// for each session that called test_url_elicitation_required, whether
	// its elicitation has completed (*mcp.ServerSession to *atomic.Bool).
	elicitations atomic.Int64
	authorized   sync.Map
	// jsonrpc1: the sessions Bind makes accept JSON-RPC 1.0 objects.
	jsonrpc1 bool
}

// newDemo builds the demo server. Nothing runs until watch is started and
// sessions are bound.
// keepAliveMisses is how many pings in a row a client may miss (-keepalive).
const keepAliveMisses = 3

func newDemo(o demoOptions) (*demo, error) {
	d := &demo{log: o.log, every: o.watchInterval, jsonrpc1: o.jsonrpc1}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	if d.every <= 0 {
		d.every = defaultWatchInterval
	}
	var so mcp.ServerOptions
	if o.server != nil {
		so = *o.server
	}
	if so.Tasks == nil {
		so.Tasks = &taskOptions
	}
	so.Instructions = "The MCP conformance suite's fixtures, echo, the JSON-RPC 2.0 specification's example methods, and sleep and cached_sleep for load tests."
	// Declared in full from the start, so every session is promised the
	// list changes (test_dynamic_tool is added later).
	so.Capabilities = &mcp.ServerCapabilities{
		Tools:       &mcp.ToolsCapability{ListChanged: true},
		Resources:   &mcp.ResourcesCapability{Subscribe: true, ListChanged: true},
		Prompts:     &mcp.PromptsCapability{ListChanged: true},
		Logging:     &mcp.LoggingCapability{},
		Completions: &mcp.CompletionsCapability{},
	}
	so.PageSize = o.pageSize
	so.KeepAlive = mcp.KeepAlive{Interval: o.keepAlive, MaxMissed: keepAliveMisses}
	so.CompletionHandler = complete
	so.Conn = o.conn
	so.ToolScopes = o.toolScopes
	d.srv = mcp.NewServer(&mcp.Implementation{
		Name:    "mcpwire-demoserver",
		Title:   "mcpwire demo server",
		Version: "0.1.0",
	}, &so)
	if o.guard != nil {
		d.srv.Use(o.guard.middleware()...) // cache hits go through it too
	}
	err := errors.Join(
		registerSpecMethods(d.srv, d.log, !o.pooled),
		registerLoadMethods(d.srv, o.cache, &d.runs),
		d.addTools(),
		d.addResources(),
		addPrompts(d.srv),
		addInputTools(d.srv),
		addTaskTools(d.srv),
	)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Bind makes each new connection a session of the MCP server that starts
// out as a plain JSON-RPC 2.0 endpoint. The MCP server refuses batches
// until initialize has negotiated a version that has them (only
// 2025-03-26 does); here batches are allowed before initialize, because a
// stream that has not started MCP is plain JSON-RPC, and the
// specification's examples include batches. initialize then applies the
// negotiated version's rule. (MCP requests in such a batch are still
// refused one by one, -32600, until initialize.) With -jsonrpc1 the
// session accepts JSON-RPC 1.0 objects too.
func (d *demo) Bind(ctx context.Context, p *conn.Peer) (*conn.Options, error) {
	o, err := d.srv.Bind(ctx, p)
	if err != nil {
		return nil, err
	}
	o.RefuseBatches = false
	o.JSONRPC1 = d.jsonrpc1
	return o, nil
}

// watch changes test://watched-resource every interval while a session is
// subscribed to it, telling the subscribers
// (notifications/resources/updated), until ctx is done.
func (d *demo) watch(ctx context.Context) {
	t := time.NewTicker(d.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !d.watchedBySomeone() {
			continue
		}
		d.watched.Add(1)
		if err := d.srv.ResourceUpdated(ctx, watchedURI); err != nil {
			d.log.Debug("resources/updated not sent", "uri", watchedURI, "err", err)
		}
	}
}

// watchedBySomeone reports whether a session is subscribed to
// test://watched-resource.
func (d *demo) watchedBySomeone() bool {
	for _, ss := range d.srv.Sessions() {
		if ss.Subscribed(watchedURI) {
			return true
		}
	}
	return false
}
