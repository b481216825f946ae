// Command demoserver serves the JSON-RPC 2.0 specification's example
// methods (subtract, sum, get_data and the notifications update,
// notify_hello, notify_sum) plus echo, over stdio, TCP or a Unix socket, in
// newline or Content-Length framing. It logs to stderr only.
//
//	demoserver                                  # stdio, newline framing
//	demoserver -framing header                  # stdio, LSP-style headers
//	demoserver -listen tcp://127.0.0.1:7000
//	demoserver -listen unix:///tmp/demo.sock
//
// It exits cleanly when stdin closes (stdio) or on SIGINT/SIGTERM, letting
// requests in flight finish first.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "demoserver:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("demoserver", flag.ContinueOnError)
	listen := fs.String("listen", "stdio", "stdio, tcp://HOST:PORT or unix://PATH")
	framing := fs.String("framing", "newline", "newline or header")
	verbose := fs.Bool("v", false, "log at debug level")
	grace := fs.Duration("shutdown-timeout", 5*time.Second, "how long requests in flight may run on after SIGINT/SIGTERM")
	if err := fs.Parse(args); err != nil {
		return err
	}
	f, err := codec.ParseFraming(*framing)
	if err != nil {
		return err
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	r := router.New()
	if err := register(r, log); err != nil {
		return err
	}
	p, err := pool.New(nil)
	if err != nil {
		return err
	}
	defer p.Close(context.Background())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := transport.NewServer(&conn.Options{Framing: f, Router: r, Pool: p, Logger: log})

	if *listen == "stdio" {
		c, err := srv.ServeConn(transport.NewStdio())
		if err != nil {
			return err
		}
		select {
		case <-c.Done():
		case <-ctx.Done():
			log.Info("signal: shutting down")
		}
		return shutdown(srv, *grace, log)
	}
	ln, err := transport.Listen(ctx, *listen)
	if err != nil {
		return err
	}
	log.Info("listening", "addr", transport.URL(ln), "framing", f.String())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
		log.Info("signal: shutting down")
	}
	err = shutdown(srv, *grace, log)
	if serr := <-served; !errors.Is(serr, transport.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// shutdown drains the server for at most grace. Past it the sessions are
// cut short (their requests answered -32004): that is how a deadline works,
// not a failure of the server, so it is logged and the exit stays clean.
func shutdown(srv *transport.Server, grace time.Duration, log *slog.Logger) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		log.Warn("shutdown deadline passed: sessions cut short", "timeout", grace)
		return nil
	}
	return err
}
