package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// serveHTTP serves the demo's MCP server (its fixtures and plain JSON-RPC
// methods) over Streamable HTTP at /mcp, and over the HTTP+SSE transport
// of 2024-11-05 at /sse, and its sessions as the stream transports serve
// them (plain JSON-RPC first, MCP after initialize) over JSON-RPC over
// HTTP POST at /rpc (a session per POST) and WebSocket at /ws (a session
// per connection), on the address of cfg.listen ("http://HOST:PORT"; port
// 0 picks one, logged as "listening addr=http://…") until ctx is done
// (SIGINT/SIGTERM); then it shuts down within cfg.grace. g's token, if
// any, is checked on every request (the sessions' calls go through g's
// middleware too).
//
// The server has no ReadTimeout or WriteTimeout (mcp.NewHTTPServer: /mcp
// and /sse hold event streams open); /rpc bounds each body read and each
// answer's write itself.
func serveHTTP(ctx context.Context, d *demo, g *guard, cfg config, log *slog.Logger) error {
	srv := d.srv
	ln, err := net.Listen("tcp", strings.TrimPrefix(cfg.listen, "http://"))
	if err != nil {
		return err
	}
	streamable := mcp.NewStreamableHTTPHandler(srv, nil)
	legacy := mcp.NewSSEHandler(srv, nil)
	mux := http.NewServeMux()
	// With -auth-token, every request to them needs it (401 otherwise):
	// /mcp, /sse and the WebSocket upgrade here, /rpc's calls through the
	// sessions' middleware (the header is in their context).
	mux.Handle("/mcp", g.http(streamable))
	mux.Handle("/sse", g.http(legacy))
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

	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
		log.Info("signal: shutting down")
	}
	legacy.Close()
	err = shutdown(func(ctx context.Context) error {
		err := errors.Join(streamable.Shutdown(ctx), ws.Shutdown(ctx), hs.Shutdown(ctx))
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

// isHTTP reports whether a -listen address asks for Streamable HTTP.
func isHTTP(listen string) bool {
	return strings.HasPrefix(listen, "http://")
}
