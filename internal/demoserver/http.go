package demoserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/transport"
)

// serveHTTP serves the demo's MCP server (its fixtures and plain JSON-RPC
// methods) over Streamable HTTP at /mcp, and over the HTTP+SSE transport
// of 2024-11-05 at /sse, and its sessions as the stream transports serve
// them (plain JSON-RPC first, MCP after initialize) over JSON-RPC over
// HTTP POST at /rpc (a session per POST) and WebSocket at /ws (a session
// per connection), on the address of cfg.listen ("http://HOST:PORT"; port
// 0 picks one, logged as "listening addr=http://…" and given to ready once
// -fast-rpc's address listens too) until ctx is done (SIGINT/SIGTERM, or
// Server.Close); then it shuts down within cfg.grace. hopts are /mcp's and
// /sse's options (sessionOptions', and the stores shareThrough set); it
// adds to them what this function decides. g's token, if any,
// is checked on every request (the sessions' calls go through g's
// middleware too).
//
// The server has no ReadTimeout or WriteTimeout (transport.NewHTTPServer with EventStreams: /mcp
// and /sse hold event streams open): every request's body must come within
// streamable.DefaultHTTPTimeout of its header, whichever endpoint it is for, and
// /rpc bounds each answer's write itself. A POST to /rpc still running
// when the shutdown's grace is over is answered -32004 with status 503.
func serveHTTP(ctx context.Context, d *demo, g *guard, cfg config, hopts *streamable.Options, log *slog.Logger, ready func(url string)) error {
	srv := d.srv
	ln, err := net.Listen("tcp", strings.TrimPrefix(cfg.listen, "http://"))
	if err != nil {
		return err
	}
	// With -auth-token, every request to them needs it (401 otherwise):
	// /mcp and /sse behind their host check and CORS (so that preflights
	// are answered and refusals carry CORS headers), the WebSocket upgrade
	// here, /rpc's calls through the sessions' middleware (the header is
	// in their context).
	mux := http.NewServeMux()
	if g.oauth {
		audience := cfg.oauth.audience
		if audience == "" {
			audience = "http://" + ln.Addr().String() + "/mcp"
		}
		rs, err := newResourceServer(ctx, cfg.oauth, audience, log)
		if err != nil {
			ln.Close()
			return err
		}
		defer rs.close()
		g.bearer = rs.bearer
		hopts.ResourceMetadataURL = rs.metadataURL
		for _, p := range rs.paths {
			mux.Handle(p, rs.metadata)
		}
		log.Info("oauth resource server", "issuer", cfg.oauth.issuer, "audience", audience, "metadata", rs.metadataURL)
	}
	hopts.Middleware = g.http
	if cfg.cors != nil {
		hopts.CORS = &streamable.CORSOptions{AllowedOrigins: cfg.cors}
	}
	mcpH := streamable.NewHandler(srv, hopts)
	legacy := streamable.NewSSEHandler(srv, hopts)
	mux.Handle("/mcp", mcpH)
	mux.Handle("/sse", legacy)
	// No ReadTimeout of its own: the server bounds every body with
	// cfg.readTimeout (BodyTimeout below) before /rpc sees it, and a
	// second deadline would only cost each POST a clock read and a timer.
	rpc := transport.NewHTTPHandler(d, &transport.HTTPOptions{
		WriteTimeout: transport.DefaultHTTPWriteTimeout,
		Logger:       log,
	})
	mux.Handle("/rpc", rpc)
	ws := transport.NewWebSocketHandler(d, &transport.WebSocketOptions{Logger: log})
	mux.Handle("/ws", g.http(ws))
	// Every body within -read-timeout, whichever endpoint it is for; no
	// server-wide read or write timeout, which would cut event streams.
	hs := transport.NewHTTPServer(mux, &transport.HTTPServerOptions{Addr: ln.Addr().String(), EventStreams: true, BodyTimeout: cfg.readTimeout})
	hs.ReadHeaderTimeout = min(hs.ReadHeaderTimeout, cfg.readTimeout)
	hs.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelDebug)
	log.Info("listening", "addr", "http://"+ln.Addr().String(), "endpoint", "/mcp", "legacy", "/sse", "rpc", "/rpc", "ws", "/ws", "server", cfg.httpServer)

	fast, err := listenFastRPC(d, mcpH, cfg.fastRPC, cfg.readTimeout, log)
	if err != nil {
		ln.Close()
		return err
	}
	// With -http-server fast, a fasthttp server at the front door serves
	// /rpc and hands every other connection to hs (front.go).
	door := &fastRPC{served: make(chan error, 1)}
	var hsln net.Listener = ln
	if cfg.httpServer == httpServerFast {
		to := newHandoff(ln.Addr())
		door.serve(d, mcpH, ln, cfg.readTimeout, log, to)
		hsln = to
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(hsln) }()
	ready("http://" + ln.Addr().String())
	select {
	case err := <-served:
		fast.stop(ctx)
		door.stop(ctx)
		return err
	case err := <-fast.served:
		hs.Close()
		<-served
		door.stop(ctx)
		return err
	case err := <-door.served:
		hs.Close()
		<-served
		fast.stop(ctx)
		return err
	case <-ctx.Done():
		log.Info("shutting down", "cause", context.Cause(ctx))
	}
	err = shutdown(func(ctx context.Context) error {
		// /rpc's POSTs still running once the grace is over are answered
		// -32004 (rpc.Shutdown, door.stop) before hs.Close cuts their
		// connections. The front door stops taking connections before hs
		// stops taking those it hands over.
		err := errors.Join(mcpH.Shutdown(ctx), legacy.Shutdown(ctx), ws.Shutdown(ctx), rpc.Shutdown(ctx), door.stop(ctx), hs.Shutdown(ctx), fast.stop(ctx))
		if ctx.Err() != nil {
			hs.Close() // past the deadline: cut what is left
		}
		return err
	}, cfg.grace, log)
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// sessionOptions are the bounds -max-sessions, -max-sessions-per-peer,
// -session-idle and -read-timeout put on the MCP sessions over HTTP.
func sessionOptions(cfg config) *streamable.Options {
	return &streamable.Options{
		MaxSessions:             orNone(cfg.maxSessions),
		MaxSessionsPerPrincipal: orNone(cfg.maxPerPeer),
		SessionTimeout:          orNone(cfg.sessionIdle),
		HTTPOptions:             transport.HTTPOptions{ReadTimeout: cfg.readTimeout},
	}
}

// orNone turns a flag's 0 (no bound) into streamable.Options' negative one (its
// 0 is the default).
func orNone[T int | time.Duration](v T) T {
	if v == 0 {
		return -1
	}
	return v
}

// fastRPC is a fasthttp server of JSON-RPC over HTTP POST: -fast-rpc's,
// or the front door of -http-server fast.
type fastRPC struct {
	srv    *fasthttp.Server // nil when not serving
	h      *transport.FastHTTPHandler
	served chan error // Serve's error; never sent to without one
}

// listenFastRPC serves b's sessions at addr with transport.FastHTTPHandler
// (nothing for an empty addr), and at its path /mcp the Streamable HTTP
// endpoint mcp (the same handler, sessions and all, as -listen's /mcp), a
// request's header and body read within readTimeout, logging its URLs as
// fastrpc=URL and fastmcp=URL.
func listenFastRPC(b conn.Binder, mcp *streamable.Handler, addr string, readTimeout time.Duration, log *slog.Logger) (*fastRPC, error) {
	f := &fastRPC{served: make(chan error, 1)}
	if addr == "" {
		return f, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	base := "http://" + ln.Addr().String()
	log.Info("serving JSON-RPC over HTTP POST and Streamable HTTP on fasthttp", "fastrpc", base+"/rpc", "fastmcp", base+"/mcp")
	f.serve(b, mcp, ln, readTimeout, log, nil)
	return f, nil
}

// serve serves b's sessions on ln with transport.FastHTTPHandler, and
// at /mcp the Streamable HTTP endpoint mcp, a request's header and body
// read within readTimeout; with to, as the front door instead: /rpc and
// /mcp served, other connections handed to to.
func (f *fastRPC) serve(b conn.Binder, mcp *streamable.Handler, ln net.Listener, readTimeout time.Duration, log *slog.Logger, to *handoff) {
	f.h = transport.NewFastHTTPHandler(b, &transport.HTTPOptions{Logger: log})
	f.srv = transport.NewFastHTTPServer((&front{rpc: f.h.ServeFastHTTP, mcp: mcp.ServeFastHTTP, to: to}).serve)
	f.srv.KeepHijackedConns = to != nil // they are hs's now
	f.srv.Logger = fastLogger{log}
	f.srv.ReadTimeout = readTimeout
	go func() { f.served <- f.srv.Serve(ln) }()
}

// stop shuts the server down by ctx's deadline: requests still running
// then are answered -32004 (FastHTTPHandler.Shutdown), and the server is
// given fastWriteGrace past the deadline to write those answers.
func (f *fastRPC) stop(ctx context.Context) error {
	if f.srv == nil {
		return nil
	}
	err := f.h.Shutdown(ctx)
	wctx := ctx
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(context.Background(), fastWriteGrace)
		defer cancel()
	}
	if serr := f.srv.ShutdownWithContext(wctx); serr != nil && err == nil {
		err = serr
	}
	<-f.served
	return err
}

// fastWriteGrace is how long past the shutdown's deadline the fasthttp
// server may take to write the answers of the requests it abandoned.
const fastWriteGrace = time.Second

// fastLogger sends fasthttp's log lines to the demo's log, at debug level.
type fastLogger struct{ log *slog.Logger }

func (l fastLogger) Printf(format string, args ...any) { l.log.Debug(fmt.Sprintf(format, args...)) }

// isHTTP reports whether a -listen address asks for Streamable HTTP.
func isHTTP(listen string) bool {
	return strings.HasPrefix(listen, "http://")
}
