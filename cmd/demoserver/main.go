// Command demoserver is mcpwire's example server: an MCP server holding
// the fixtures of the official MCP conformance suite (shared/CONFORMANCE.md
// §1: tools, resources, a resource template, prompts, completions, logging,
// progress, sampling, elicitation, list changes, subscriptions) plus echo,
// and, on the same stream, the JSON-RPC 2.0 specification's example
// methods (subtract, sum, get_data, echo and the notifications update,
// notify_hello, notify_sum), which answer with or without initialize.
// It serves stdio, TCP or a Unix socket, each connection an MCP session of
// its own, in newline or Content-Length framing. It logs to stderr only.
//
//	demoserver                                  # stdio, newline framing (MCP's stdio transport)
//	demoserver -framing header                  # stdio, LSP-style headers
//	demoserver -listen tcp://127.0.0.1:7000
//	demoserver -listen unix:///tmp/demo.sock
//	demoserver -listen http://127.0.0.1:8080    # MCP Streamable HTTP at /mcp, HTTP+SSE (2024-11-05) at /sse
//	demoserver -page-size 3                     # lists in pages of 3 (to test pagination)
//
// It exits cleanly when stdin closes (stdio) or on
// SIGINT/SIGTERM, letting requests in flight finish first.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/transport"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole command: it serves stdio on stdin and stdout, logs to
// stderr and returns the exit code: 0 when it ends cleanly or was asked for
// its usage (-h), 2 for a usage error, 1 when serving fails.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demoserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // printed below: on stdout when asked for, after the error otherwise
	listen := fs.String("listen", "stdio", "stdio, tcp://HOST:PORT or unix://PATH")
	framing := fs.String("framing", "newline", "newline or header")
	verbose := fs.Bool("v", false, "log at debug level")
	grace := fs.Duration("shutdown-timeout", 5*time.Second, "how long requests in flight may run on after SIGINT/SIGTERM")
	pageSize := fs.Int("page-size", mcp.DefaultPageSize, "the most items of one MCP list answer (tools, resources, templates, prompts)")
	watch := fs.Duration("watch-interval", defaultWatchInterval, "how often test://watched-resource changes while a session is subscribed")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(fs, stdout)
			return 0
		}
		usage(fs, stderr) // after Parse's own message
		return 2
	}
	f, err := codec.ParseFraming(*framing)
	switch {
	case err != nil, *listen == "stdio":
	case isHTTP(*listen):
		if _, _, serr := net.SplitHostPort(strings.TrimPrefix(*listen, "http://")); serr != nil {
			err = fmt.Errorf("-listen %s: want http://HOST:PORT: %w", *listen, serr)
		}
	default:
		_, _, err = transport.ParseAddr(*listen)
	}
	if err == nil && (*pageSize <= 0 || *watch <= 0) {
		err = fmt.Errorf("-page-size and -watch-interval must be positive")
	}
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if err != nil {
		fmt.Fprintf(stderr, "demoserver: %v\nRun demoserver -h for usage.\n", err)
		return 2
	}
	cfg := config{listen: *listen, framing: f, verbose: *verbose, grace: *grace, pageSize: *pageSize, watch: *watch}
	if err := serve(cfg, stdin, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "demoserver:", err)
		return 1
	}
	return 0
}

// usage prints the command's help to w.
func usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, `Usage: demoserver [flags]

Serves MCP (the conformance suite's fixtures and echo) and, on the same
stream, the JSON-RPC 2.0 specification's example methods, over stdio (the
default), TCP or a Unix socket. Logs go to stderr.

Flags:
`)
	out := fs.Output()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(out)
}

// config is what the flags chose.
type config struct {
	listen   string // "stdio" or an address for transport.Listen
	framing  codec.Framing
	verbose  bool
	grace    time.Duration // -shutdown-timeout
	pageSize int           // -page-size
	watch    time.Duration // -watch-interval
}

// serve runs the server until stdin closes (stdio) or SIGINT/SIGTERM.
func serve(cfg config, stdin io.Reader, stdout, stderr io.Writer) error {
	level := slog.LevelInfo
	if cfg.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	p, err := pool.New(nil)
	if err != nil {
		return err
	}
	defer p.Close(context.Background())
	d, err := newDemo(demoOptions{
		conn:          &conn.Options{Framing: cfg.framing, Pool: p, Logger: log},
		pageSize:      cfg.pageSize,
		watchInterval: cfg.watch,
		log:           log,
	})
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go d.watch(wctx)

	if isHTTP(cfg.listen) {
		return serveHTTP(ctx, d.srv, cfg, log)
	}
	srv := transport.NewServer(d)

	if cfg.listen == "stdio" {
		c, err := srv.ServeConn(&transport.Stdio{R: stdin, W: stdout})
		if err != nil {
			return err
		}
		select {
		case <-c.Done():
		case <-ctx.Done():
			log.Info("signal: shutting down")
		}
		return shutdown(srv.Shutdown, cfg.grace, log)
	}
	ln, err := transport.Listen(ctx, cfg.listen)
	if err != nil {
		return err
	}
	log.Info("listening", "addr", transport.URL(ln), "framing", cfg.framing.String())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
		log.Info("signal: shutting down")
	}
	err = shutdown(srv.Shutdown, cfg.grace, log)
	if serr := <-served; !errors.Is(serr, transport.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// shutdown drains the server (stop) for at most grace. Past it the
// sessions are cut short (their requests answered -32004): that is how a
// deadline works, not a failure of the server, so it is logged and the
// exit stays clean.
func shutdown(stop func(context.Context) error, grace time.Duration, log *slog.Logger) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := stop(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		log.Warn("shutdown deadline passed: sessions cut short", "timeout", grace)
		return nil
	}
	return err
}
