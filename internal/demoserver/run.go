package demoserver

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/mcpwire/mcpwire/transport"
)

// Run is the whole command cmd/demoserver, with the command's arguments
// (without its name) in args: it serves stdio on stdin and stdout, or the
// -listen address, logs to stderr, and returns the exit code: 0 when it
// ends cleanly (stdin closed, or SIGINT/SIGTERM and the shutdown done) or
// was asked for its usage (-h), 2 for a usage error, 1 when serving fails.
// It handles SIGINT and SIGTERM while it runs.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, cfg, err := parseFlags(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage(fs, stdout)
		return 0
	case errors.As(err, new(syntaxError)):
		usage(fs, stderr) // after Parse's own message
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "demoserver: %v\nRun demoserver -h for usage.\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, cfg, stdin, stdout, stderr, nil); err != nil {
		fmt.Fprintln(stderr, "demoserver:", err)
		return 1
	}
	return 0
}

// serve runs the server cfg describes until stdin closes (stdio) or ctx is
// done, then shuts it down within cfg.grace; ctx's cause is logged. It logs
// to logw (nil: nowhere). Once it listens (not on stdio), it calls ready,
// if not nil, with the URL it serves: transport.URL's for TCP and Unix
// sockets, http://HOST:PORT for HTTP.
func serve(ctx context.Context, cfg config, stdin io.Reader, stdout, logw io.Writer, ready func(url string)) (err error) {
	level := slog.LevelInfo
	if cfg.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.DiscardHandler)
	if logw != nil {
		ho := &slog.HandlerOptions{Level: level}
		if cfg.logJSON {
			log = slog.New(slog.NewJSONHandler(logw, ho))
		} else {
			log = slog.New(slog.NewTextHandler(logw, ho))
		}
	}
	log = log.With("instance", cfg.instance)
	if ready == nil {
		ready = func(string) {}
	}

	link, err := openRedis(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, link.shutdown()) }() // after everything that may use it
	sh := newSharable(cfg)
	if link != nil {
		link.shareThrough(sh, log)
	}
	e, err := newEngine(cfg, &sh.cache, log)
	if err != nil {
		return err
	}
	defer e.close()
	if cfg.metrics != "" {
		ms, merr := serveMetrics(cfg.metrics, cfg.instance, link.upFunc(), e, log)
		if merr != nil {
			return merr
		}
		// Before newDemo: mcp.NewServer copies the connection options.
		e.conn.Metrics = ms.col
		defer func() { err = errors.Join(err, ms.stop(cfg.grace)) }()
	}
	g := &guard{token: cfg.authToken, oauth: cfg.oauth.issuer != "", forbid: cfg.forbid, rate: cfg.rate, rateOptions: &sh.rate, log: log, debug: cfg.verbose}
	if g.oauth && !isHTTP(cfg.listen) { // over HTTP, once the server's URL is known
		rs, err := newResourceServer(ctx, cfg.oauth, cfg.oauth.audience, log)
		if err != nil {
			return err
		}
		defer rs.close()
		g.bearer = rs.bearer
	}
	d, err := newDemo(demoOptions{
		server:        &sh.server,
		toolScopes:    cfg.oauth.toolScopes,
		conn:          e.conn,
		guard:         g,
		pageSize:      cfg.pageSize,
		watchInterval: cfg.watch,
		keepAlive:     cfg.keepAlive,
		pooled:        !cfg.inline,
		jsonrpc1:      cfg.jsonrpc1,
		cache:         e.cache,
		log:           log,
	})
	if err != nil {
		return err
	}
	link.shareKeys(ctx, d.srv, log)

	wctx, stopWatch := context.WithCancel(ctx)
	var watching sync.WaitGroup
	watching.Go(func() { d.watch(wctx) })
	defer watching.Wait() // after stopWatch: deferred calls run last first
	defer stopWatch()

	if isHTTP(cfg.listen) {
		return serveHTTP(ctx, d, g, cfg, &sh.http, log, ready)
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
			log.Info("shutting down", "cause", context.Cause(ctx))
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
	ready(transport.URL(ln))
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
		log.Info("shutting down", "cause", context.Cause(ctx))
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
