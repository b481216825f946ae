// Command echoserver serves the echo service of package echo (test_echo:
// params ["msg"], result "msg") built on one of the JSON-RPC libraries
// bench compares, over stdio or loopback TCP, newline-delimited, so that
// the root module's cmd/loadgen can load each from outside:
//
//	echoserver -impl geth                               # stdio, until stdin ends
//	echoserver -impl jrpc2 -listen tcp://127.0.0.1:7001  # until SIGINT or SIGTERM
//	loadgen -method test_echo -params '["hi"]' -expect '"hi"' 'stdio:echoserver -impl geth'
//	loadgen -method test_echo -params '["hi"]' -expect '"hi"' -c 8 -depth 64 tcp://127.0.0.1:7001
//
// -impl is one of mcpwire, jrpc2, sourcegraph, x-exp-jsonrpc2, geth,
// naive-stdjson, naive-sonic. Over TCP it logs "listening on tcp://ADDR"
// on stderr once it accepts (port 0 picks a free port).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/mcpwire/mcpwire/bench/echo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "echoserver:", err)
		os.Exit(1)
	}
}

// run parses args and serves until the stream ends (stdio) or ctx is done
// (TCP).
func run(ctx context.Context, args []string, in io.Reader, out, errw io.Writer) error {
	fs := flag.NewFlagSet("echoserver", flag.ContinueOnError)
	fs.SetOutput(errw)
	impl := fs.String("impl", "mcpwire", "the implementation: "+strings.Join(echo.Names, ", "))
	listen := fs.String("listen", "", "tcp://HOST:PORT to listen on (default: stdio)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	s, err := echo.New(*impl)
	if err != nil {
		return fmt.Errorf("%w: %q (one of %s)", err, *impl, strings.Join(echo.Names, ", "))
	}
	defer s.Close()
	if *listen == "" {
		return serveStdio(ctx, s, in, out)
	}
	addr, ok := strings.CutPrefix(*listen, "tcp://")
	if !ok {
		return fmt.Errorf("-listen %q: want tcp://HOST:PORT", *listen)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(errw, "listening on tcp://%s\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- echo.Serve(ln, s) }()
	<-ctx.Done()
	ln.Close()
	if err := <-served; !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

// serveStdio serves in and out as one stream until in ends or ctx is done.
func serveStdio(ctx context.Context, s echo.Server, in io.Reader, out io.Writer) error {
	st := &stdio{in: in, out: out, ended: make(chan struct{})}
	s.ServeConn(st)
	select {
	case <-st.ended:
	case <-ctx.Done():
	}
	return nil
}

// stdio is a reader and a writer as one stream that tells when the
// reader ends or the stream is closed (not every library closes a stream
// at its end).
type stdio struct {
	in    io.Reader
	out   io.Writer
	once  sync.Once
	ended chan struct{}
}

func (s *stdio) Read(p []byte) (int, error) {
	n, err := s.in.Read(p)
	if err != nil {
		s.end()
	}
	return n, err
}

func (s *stdio) Write(p []byte) (int, error) { return s.out.Write(p) }

// Close ends the stream (the process's stdin and stdout stay open until
// it exits).
func (s *stdio) Close() error {
	s.end()
	return nil
}

func (s *stdio) end() { s.once.Do(func() { close(s.ended) }) }
