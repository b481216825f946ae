package demoserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
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
// Server.Close); then it shuts down within cfg.grace. g's token, if any,
// is checked on every request (the sessions' calls go through g's
// middleware too).
//
// The server has no ReadTimeout or WriteTimeout (mcp.NewHTTPServer: /mcp
// and /sse hold event streams open); /rpc bounds each body read and each
// answer's write itself.
func serveHTTP(ctx context.Context, d *demo, g *guard, cfg config, log *slog.Logger, ready func(url string)) error {
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
	hopts := &mcp.HTTPOptions{Middleware: g.http}
	if cfg.cors != nil {
		hopts.CORS = &mcp.CORSOptions{AllowedOrigins: cfg.cors}
	}
	streamable := mcp.NewStreamableHTTPHandler(srv, hopts)
	legacy := mcp.NewSSEHandler(srv, hopts)
	mux := http.NewServeMux()
	mux.Handle("/mcp", streamable)
	mux.Handle("/sse", legacy)
	mux.Handle("/rpc", transport.NewHTTPHandler(d, &transport.HTTPOptions{
		ReadTimeout:  transport.DefaultHTTPReadTimeout,
		WriteTimeout: transport.DefaultHTTPWriteTimeout,
		Logger:       log,
	}))
	ws := transport.NewWebSocketHandler(d, &transport.WebSocketOptions{Logger: log})
	mux.Handle("/ws", g.http(ws))
	hs := mcp.NewHTTPServer(ln.Addr().String(), mux)
	hs.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelDebug)
	log.Info("listening", "addr", "http://"+ln.Addr().String(), "endpoint", "/mcp", "legacy", "/sse", "rpc", "/rpc", "ws", "/ws")

	fast, err := listenFastRPC(d, cfg.fastRPC, log)
	if err != nil {
		ln.Close()
		return err
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	ready("http://" + ln.Addr().String())
	select {
	case err := <-served:
		fast.stop(ctx)
		return err
	case err := <-fast.served:
		hs.Close()
		<-served
		return err
	case <-ctx.Done():
		log.Info("shutting down", "cause", context.Cause(ctx))
	}
	legacy.Close()
	err = shutdown(func(ctx context.Context) error {
		err := errors.Join(streamable.Shutdown(ctx), ws.Shutdown(ctx), hs.Shutdown(ctx), fast.stop(ctx))
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

// fastRPC is the -fast-rpc server: JSON-RPC over HTTP POST on fasthttp.
type fastRPC struct {
	srv    *fasthttp.Server // nil without -fast-rpc
	served chan error       // Serve's error; never sent to without one
}

// listenFastRPC serves b's sessions at addr with transport.FastHTTPHandler
// (nothing for an empty addr), logging its URL as fastrpc=URL.
func listenFastRPC(b conn.Binder, addr string, log *slog.Logger) (*fastRPC, error) {
	f := &fastRPC{served: make(chan error, 1)}
	if addr == "" {
		return f, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	f.srv = transport.NewFastHTTPServer(transport.NewFastHTTPHandler(b, &transport.HTTPOptions{Logger: log}).ServeFastHTTP)
	f.srv.Logger = fastLogger{log}
	log.Info("serving JSON-RPC over HTTP POST on fasthttp", "fastrpc", "http://"+ln.Addr().String()+"/rpc")
	go func() { f.served <- f.srv.Serve(ln) }()
	return f, nil
}

// stop shuts the server down by ctx's deadline: connections still open
// then are closed.
func (f *fastRPC) stop(ctx context.Context) error {
	if f.srv == nil {
		return nil
	}
	err := f.srv.ShutdownWithContext(ctx)
	<-f.served
	return err
}

// fastLogger sends fasthttp's log lines to the demo's log, at debug level.
type fastLogger struct{ log *slog.Logger }

func (l fastLogger) Printf(format string, args ...any) { l.log.Debug(fmt.Sprintf(format, args...)) }

// isHTTP reports whether a -listen address asks for Streamable HTTP.
func isHTTP(listen string) bool {
	return strings.HasPrefix(listen, "http://")
}
