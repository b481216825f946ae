package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/middleware"
	"github.com/mcpwire/mcpwire/transport"
)

// config is what the flags say.
type config struct {
	dsn        string
	listen     string
	allowWrite bool
	timeout    time.Duration
	maxRows    int
	maxConns   int
	verbose    bool
}

// parseFlags reads the command line.
func parseFlags(args []string, stderr io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("sqlmcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.dsn, "dsn", os.Getenv("SQLMCP_DSN"), "the database: sqlite:PATH, mysql://USER:PASSWORD@HOST:PORT/DB (MySQL or MariaDB; ?socket=PATH for a Unix socket)\nor postgres://USER:PASSWORD@HOST:PORT/DB (default: $SQLMCP_DSN, else the demo SQLite database)")
	fs.StringVar(&c.listen, "listen", "stdio", "stdio, or http://HOST:PORT to serve Streamable HTTP at /mcp")
	fs.BoolVar(&c.allowWrite, "allow-write", false, "offer sql_execute, which writes")
	fs.DurationVar(&c.timeout, "timeout", 5*time.Second, "the longest a statement may run")
	fs.IntVar(&c.maxRows, "max-rows", 1000, "the most rows sql_query returns (it returns 100 unless asked for more)")
	fs.IntVar(&c.maxConns, "max-conns", 4, "the most connections each pool (read-only, writing) opens")
	fs.BoolVar(&c.verbose, "v", false, "log every request")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("unexpected arguments: %q", fs.Args())
	case c.timeout <= 0 || c.maxRows <= 0 || c.maxConns <= 0:
		return nil, errors.New("-timeout, -max-rows and -max-conns must be positive")
	case c.listen != "stdio" && !strings.HasPrefix(c.listen, "http://"):
		return nil, fmt.Errorf("-listen %s: want stdio or http://HOST:PORT", c.listen)
	}
	return c, nil
}

// run is the whole command: it returns the exit code (2 for a usage
// error, 1 when serving fails).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "sqlmcp:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, c, stdin, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "sqlmcp:", err)
		return 1
	}
	return 0
}

// serve opens the database and serves it until stdin closes (stdio) or
// ctx is done.
func serve(ctx context.Context, c *config, stdin io.Reader, stdout, stderr io.Writer) error {
	t, err := resolveTarget(ctx, c.dsn)
	if err != nil {
		return err
	}
	level := slog.LevelInfo
	if c.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(scrubber{t, stderr}, &slog.HandlerOptions{Level: level}))

	db, err := openDatabase(t, poolOptions{maxConns: c.maxConns, timeout: c.timeout, write: c.allowWrite})
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.ping(ctx); err != nil {
		// Served all the same: the tools tell the model what is wrong,
		// and work once the database is back.
		log.Warn("the database does not answer", "dsn", t.display, "err", err)
	}
	srv, err := newServer(db, c, log)
	if err != nil {
		return err
	}
	log.Info("serving", "dsn", t.display, "write", c.allowWrite, "timeout", c.timeout, "transport", c.listen)
	if c.listen == "stdio" {
		return srv.Run(ctx, &transport.Stdio{R: stdin, W: stdout})
	}
	return serveHTTP(ctx, srv, strings.TrimPrefix(c.listen, "http://"), log)
}

// resolveTarget parses the DSN, or makes the demo database without one.
func resolveTarget(ctx context.Context, dsn string) (*target, error) {
	if dsn != "" {
		return parseDSN(dsn)
	}
	path, err := demoPath(ctx)
	if err != nil {
		return nil, err
	}
	return parseDSN("sqlite:" + path)
}

// newServer is the MCP server of db: tools, resources, prompt.
func newServer(db *database, c *config, log *slog.Logger) (*mcp.Server, error) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "sqlmcp", Title: "SQL database", Version: "1.0.0"}, &mcp.ServerOptions{
		Instructions: fmt.Sprintf("This server gives read access to a %s database. Learn its tables with list_tables and describe_table "+
			"(or the schema:// resources), then query it with sql_query.", db.d.name),
		CompletionHandler: completer(db),
		Conn:              &conn.Options{Logger: log, MaxInFlight: 64},
	})
	if c.verbose {
		// One record per call, its params (the SQL) included.
		srv.Use(middleware.Logging(log, &middleware.LogOptions{Level: slog.LevelDebug}))
	}
	lim := limits{defaultRows: min(100, c.maxRows), maxRows: c.maxRows}
	if err := addTools(srv, db, lim); err != nil {
		return nil, err
	}
	if err := addResources(srv, db); err != nil {
		return nil, err
	}
	return srv, addPrompt(srv, db)
}

// serveHTTP serves srv over Streamable HTTP at /mcp on addr until ctx is
// done, then shuts down within 5 seconds.
func serveHTTP(ctx context.Context, srv *mcp.Server, addr string, log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	h := streamable.NewHandler(srv, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := transport.NewHTTPServer(mux, &transport.HTTPServerOptions{Addr: ln.Addr().String(), EventStreams: true})
	hs.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelDebug)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	log.Info("listening", "addr", "http://"+ln.Addr().String(), "endpoint", "/mcp")
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = errors.Join(h.Shutdown(sctx), hs.Shutdown(sctx))
	<-served
	return err
}

// scrubber masks the DSN's secrets in everything written to w (the
// log): a last guard, should a driver put the password in a message.
type scrubber struct {
	t *target
	w io.Writer
}

func (s scrubber) Write(p []byte) (int, error) {
	if _, err := io.WriteString(s.w, s.t.scrub(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
