// Command httpecho serves one peer's echo over HTTP on loopback, for the
// out-of-process harness (bench/outside/run.sh), which loads it with wrk:
//
//	httpecho -impl geth -listen 127.0.0.1:0   # logs "listening on http://ADDR"
//
// -impl is one of:
//
//   - geth: go-ethereum's rpc.Server (JSON-RPC over HTTP POST, any path),
//     test_echo(["msg"]) answering "msg" (package echo);
//   - go-sdk, go-sdk-json: the official go-sdk's StreamableHTTPHandler
//     with its defaults (every answer an event stream) or JSONResponse,
//     the echo tool (package echotool), at any path;
//   - mcp-go: mcp-go's NewStreamableHTTPServer with its defaults (JSON
//     answers unless the handler sends notifications), the echo tool;
//   - mcpwire-json: mcpwire's streamable.Handler with JSONResponse, the
//     echo tool (mcpwire's defaults are cmd/demoserver's, in the root
//     module);
//   - floor: a baseline, not a server anyone should use: fasthttp with
//     cmd/demoserver's options answering check.lua's calls by byte
//     search (POST /, /rpc and /mcp; see floor.go), which shows what the
//     HTTP stack and the kernel cost per call: no server on fasthttp
//     answers faster.
//
// It serves until SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/mcpwire/mcpwire/bench/echo"
	"github.com/mcpwire/mcpwire/bench/echotool"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/transport"
)

// impls are the names -impl takes, in the order usage lists them.
var impls = []string{"geth", "go-sdk", "go-sdk-json", "mcp-go", "mcpwire-json", "floor"}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "httpecho:", err)
		os.Exit(1)
	}
}

// run parses args and serves until ctx is done.
func run(ctx context.Context, args []string, errw io.Writer) error {
	fs := flag.NewFlagSet("httpecho", flag.ContinueOnError)
	fs.SetOutput(errw)
	name := fs.String("impl", "geth", "the server: "+strings.Join(impls, ", "))
	listen := fs.String("listen", "127.0.0.1:0", "HOST:PORT to listen on (port 0 picks a free one)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	srv, stopHandler, err := server(*name)
	if err != nil {
		return err
	}
	defer stopHandler()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(errw, "listening on http://%s\n", ln.Addr())
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = srv.Shutdown(sctx)
	if serr := <-served; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// httpServer is what run needs of a server: *http.Server, or fastServer.
type httpServer interface {
	Serve(net.Listener) error
	Shutdown(context.Context) error
}

// fastServer gives a fasthttp.Server the Shutdown of httpServer.
type fastServer struct{ *fasthttp.Server }

func (s fastServer) Shutdown(ctx context.Context) error { return s.ShutdownWithContext(ctx) }

// server builds the server called name and how to stop what it serves.
func server(name string) (httpServer, func(), error) {
	if name == "floor" {
		return fastServer{transport.NewFastHTTPServer(floor)}, func() {}, nil
	}
	h, stop, err := handler(name)
	if err != nil {
		return nil, nil, err
	}
	return &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}, stop, nil
}

// handler builds the net/http server called name and how to stop it.
func handler(name string) (http.Handler, func(), error) {
	switch name {
	case "geth":
		srv := echo.NewGethRPC()
		return srv, srv.Stop, nil
	case "go-sdk", "go-sdk-json":
		h, closeSessions := echotool.GoSDKHandler(name == "go-sdk-json")
		return h, closeSessions, nil
	case "mcp-go":
		return echotool.MCPGoHandler(), func() {}, nil
	case "mcpwire-json":
		srv, err := echotool.Mcpwire(nil)
		if err != nil {
			return nil, nil, err
		}
		h := streamable.NewHandler(srv, &streamable.Options{JSONResponse: true})
		return h, func() { h.Close() }, nil
	}
	return nil, nil, fmt.Errorf("-impl %q: want one of %s", name, strings.Join(impls, ", "))
}
