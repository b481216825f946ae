package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/mcpwire/mcpwire/mcp"
)

// serveHTTP serves the demo's MCP server (its fixtures and plain JSON-RPC
// methods) over Streamable HTTP at /mcp, and over the HTTP+SSE transport
// of 2024-11-05 at /sse, on the address of cfg.listen ("http://HOST:PORT";
// port 0 picks one, logged as "listening addr=http://…") until ctx is done
// (SIGINT/SIGTERM); then it shuts down within cfg.grace. g's token, if
// any, is checked on every request (the sessions' calls go through g's
// middleware too).
func serveHTTP(ctx context.Context, srv *mcp.Server, g *guard, cfg config, log *slog.Logger) error {
	ln, err := net.Listen("tcp", strings.TrimPrefix(cfg.listen, "http://"))
	if err != nil {
		return err
	}
	streamable := mcp.NewStreamableHTTPHandler(srv, nil)
	legacy := mcp.NewSSEHandler(srv, nil)
	mux := http.NewServeMux()
	// With -auth-token, every request to them needs it (401 otherwise).
	mux.Handle("/mcp", g.http(streamable))
	mux.Handle("/sse", g.http(legacy))
	hs := mcp.NewHTTPServer(ln.Addr().String(), mux)
	hs.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelDebug)
	log.Info("listening", "addr", "http://"+ln.Addr().String(), "endpoint", "/mcp", "legacy", "/sse")

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
		err := errors.Join(streamable.Shutdown(ctx), hs.Shutdown(ctx))
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
