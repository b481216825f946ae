// Command demoserver is mcpwire's example server: an MCP server holding
// the fixtures of the official MCP conformance suite (shared/CONFORMANCE.md
// §1: tools, resources, a resource template, prompts, completions, logging,
// progress, sampling, elicitation, list changes, subscriptions) plus echo,
// and, on the same stream, the JSON-RPC 2.0 specification's example
// methods (subtract, sum, get_data, echo and the notifications update,
// notify_hello, notify_sum), which answer with or without initialize,
// and two methods for load tests (sleep.go): sleep, and cached_sleep
// behind the response cache.
// It serves stdio, TCP, a Unix socket or HTTP, each connection an MCP
// session of its own, in newline or Content-Length framing. It logs to
// stderr only.
//
//	demoserver                                  # stdio, newline framing (MCP's stdio transport)
//	demoserver -framing header                  # stdio, LSP-style headers
//	demoserver -listen tcp://127.0.0.1:7000
//	demoserver -listen unix:///tmp/demo.sock
//	demoserver -listen http://127.0.0.1:8080    # MCP Streamable HTTP at /mcp, HTTP+SSE (2024-11-05) at /sse,
//	                                            # JSON-RPC over HTTP POST at /rpc, WebSocket at /ws
//	demoserver -listen http://127.0.0.1:8080 -fast-rpc 127.0.0.1:8081
//	                                            # and JSON-RPC over HTTP POST on fasthttp at :8081
//	demoserver -page-size 3                     # lists in pages of 3 (to test pagination)
//	demoserver -overload reject -max-inflight 8 # answer -32000 past 8 requests in flight per connection
//	demoserver -inline=false                    # every method of the demo on the pool (to measure the hand-off)
//	demoserver -metrics 127.0.0.1:9090          # Prometheus metrics at http://127.0.0.1:9090/metrics
//	demoserver -auth-token s3cret               # every call needs the token (-32009 / HTTP 401 without it)
//	demoserver -rate 100                        # 100 calls per second per peer (-32011 / HTTP 429 past it)
//
// Every session shares one worker pool, one response cache and one
// admission limit (engine.go): a fixed one the size of the pool and its
// queue, or with -adaptive one that follows measured latency.
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
	"math"
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
	listen := fs.String("listen", "stdio", "stdio, tcp://HOST:PORT, unix://PATH or http://HOST:PORT")
	framing := fs.String("framing", "newline", "newline or header")
	verbose := fs.Bool("v", false, "log at debug level")
	grace := fs.Duration("shutdown-timeout", 5*time.Second, "how long requests in flight may run on after SIGINT/SIGTERM")
	pageSize := fs.Int("page-size", mcp.DefaultPageSize, "the most items of one MCP list answer (tools, resources, templates, prompts)")
	watch := fs.Duration("watch-interval", defaultWatchInterval, "how often test://watched-resource changes while a session is subscribed")
	inline := fs.Bool("inline", true, "run the cheap plain methods (the specification's examples, echo) inline on the reader;\nfalse puts them on the pool like every other method, to measure the hand-off\n(MCP's own inline methods, initialize and ping among them, stay inline)")
	maxInFlight := fs.Int("max-inflight", conn.DefaultMaxInFlight, "`N` requests one connection may have on the pool at once, queued or running;\npast it -overload applies")
	overload := fs.String("overload", "block", "when a connection's -max-inflight (or the server's limit) is full, `block|reject`:\nstop reading that connection, or answer -32000 with data.retryAfterMs at once")
	metricsAddr := fs.String("metrics", "", "serve Prometheus metrics at http://`ADDR`/metrics (HOST:PORT; port 0 picks one,\nlogged as metrics=URL)")
	authToken := fs.String("auth-token", "", "require `TOKEN` on every call: \"Authorization: Bearer TOKEN\" over HTTP and WebSocket,\nparams._meta.authorization \"Bearer TOKEN\" on stdio, TCP and Unix sockets;\nwithout it -32009 (HTTP 401)")
	forbid := fs.String("forbid", "", "refuse the comma-separated `METHODS` to every caller with -32010 (HTTP 403)")
	rateFlag := fs.Float64("rate", 0, "allow each peer `N` calls per second, in bursts of N (a session; over HTTP POST\nan IP address); past it -32011 with data.retryAfterMs (HTTP 429). 0: no limit")
	fastRPC := fs.String("fast-rpc", "", "with -listen http://…, also serve JSON-RPC over HTTP POST (as /rpc) on fasthttp at\n`ADDR` (HOST:PORT, any path; port 0 picks one, logged as fastrpc=URL): the same sessions,\nanswers and statuses, with the answers of pipelined requests written together")
	adaptive := fs.Bool("adaptive", false, "limit the requests of all connections together by an adaptive limit that follows\nmeasured latency, instead of a fixed one the size of the pool and its queue")
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
	if err == nil && *maxInFlight <= 0 {
		err = fmt.Errorf("-max-inflight must be positive")
	}
	var ov pool.Overload
	if err == nil {
		ov, err = parseOverload(*overload)
	}
	if err == nil && *metricsAddr != "" {
		if _, _, serr := net.SplitHostPort(*metricsAddr); serr != nil {
			err = fmt.Errorf("-metrics %s: want HOST:PORT: %w", *metricsAddr, serr)
		}
	}
	if err == nil && *fastRPC != "" {
		if !isHTTP(*listen) {
			err = fmt.Errorf("-fast-rpc needs -listen http://HOST:PORT")
		} else if _, _, serr := net.SplitHostPort(*fastRPC); serr != nil {
			err = fmt.Errorf("-fast-rpc %s: want HOST:PORT: %w", *fastRPC, serr)
		}
	}
	if err == nil && (*rateFlag < 0 || math.IsNaN(*rateFlag) || math.IsInf(*rateFlag, 0)) {
		err = fmt.Errorf("-rate %v: want a number of calls per second, 0 for no limit", *rateFlag)
	}
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if err != nil {
		fmt.Fprintf(stderr, "demoserver: %v\nRun demoserver -h for usage.\n", err)
		return 2
	}
	cfg := config{
		listen: *listen, framing: f, verbose: *verbose, grace: *grace, pageSize: *pageSize, watch: *watch,
		inline: *inline, maxInFlight: *maxInFlight, overload: ov, metrics: *metricsAddr, adaptive: *adaptive,
		authToken: *authToken, forbid: splitList(*forbid), rate: *rateFlag, fastRPC: *fastRPC,
	}
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
default), TCP, a Unix socket or HTTP. Logs go to stderr. Over HTTP:
  /mcp  MCP Streamable HTTP        /sse  MCP HTTP+SSE (2024-11-05)
  /rpc  JSON-RPC over HTTP POST    /ws   JSON-RPC over WebSocket

For load tests, two plain JSON-RPC methods hold a worker on the pool:
  sleep        {"ms": N}                sleeps N ms (0..10000), returns N
  cached_sleep {"ms": N, "key": STRING} the same behind the response cache
               (60 s), returns {"ms": N, "key": KEY, "runs": R}, R counting
               the handler's runs: single flight and hits show in it

Flags:
`)
	out := fs.Output()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(out)
}

// parseOverload reads -overload.
func parseOverload(s string) (pool.Overload, error) {
	switch s {
	case "block":
		return pool.Block, nil
	case "reject":
		return pool.Reject, nil
	}
	return 0, fmt.Errorf("-overload %s: want block or reject", s)
}

// config is what the flags chose.
type config struct {
	listen      string // "stdio" or an address for transport.Listen
	framing     codec.Framing
	verbose     bool
	grace       time.Duration // -shutdown-timeout
	pageSize    int           // -page-size
	watch       time.Duration // -watch-interval
	inline      bool          // -inline
	maxInFlight int           // -max-inflight
	overload    pool.Overload // -overload
	metrics     string        // -metrics: HOST:PORT, or "" for none
	adaptive    bool          // -adaptive
	authToken   string        // -auth-token: "" for none
	forbid      []string      // -forbid
	rate        float64       // -rate: 0 for no limit
	fastRPC     string        // -fast-rpc: HOST:PORT, or "" for none
}

// splitList reads a comma-separated flag: its non-empty items.
func splitList(s string) []string {
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// serve runs the server until stdin closes (stdio) or SIGINT/SIGTERM.
func serve(cfg config, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	level := slog.LevelInfo
	if cfg.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	e, err := newEngine(cfg, log)
	if err != nil {
		return err
	}
	defer e.close()
	if cfg.metrics != "" {
		ms, merr := serveMetrics(cfg.metrics, e, log)
		if merr != nil {
			return merr
		}
		// Before newDemo: mcp.NewServer copies the connection options.
		e.conn.Metrics = ms.col
		defer func() { err = errors.Join(err, ms.stop(cfg.grace)) }()
	}
	g := &guard{token: cfg.authToken, forbid: cfg.forbid, rate: cfg.rate, log: log, debug: cfg.verbose}
	d, err := newDemo(demoOptions{
		conn:          e.conn,
		guard:         g,
		pageSize:      cfg.pageSize,
		watchInterval: cfg.watch,
		pooled:        !cfg.inline,
		cache:         e.cache,
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
		return serveHTTP(ctx, d, g, cfg, log)
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
