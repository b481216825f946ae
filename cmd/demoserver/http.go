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
// (SIGINT/SIGTERM); then it shuts down within cfg.grace.
//
// The server has no ReadTimeout or WriteTimeout (mcp.NewHTTPServer: /mcp
// and /sse hold event streams open); /rpc bounds each body read and each
// answer's write itself.
func serveHTTP(ctx context.Context, d *demo, cfg config, log *slog.Logger) error {
	srv := d.srv
	ln, err := net.Listen("tcp", strings.TrimPrefix(cfg.listen, "http://"))
	if err != nil {
		return err
	}
	streamable := mcp.NewStreamableHTTPHandler(srv, nil)
	legacy := mcp.NewSSEHandler(srv, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", streamable)
	mux.Handle("/sse", legacy)
	mux.Handle("/rpc", transport.NewHTTPHandler(d, &transport.HTTPOptions{
		ReadTimeout:  transport.DefaultHTTPReadTimeout,
		WriteTimeout: transport.DefaultHTTPWriteTimeout,
		Logger:       log,
	}))
	ws := transport.NewWebSocketHandler(d, &transport.WebSocketOptions{Logger: log})
	mux.Handle("/ws", ws)
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
