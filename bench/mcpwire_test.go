package bench

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/mcpwire/mcpwire/bench/echotool"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/transport"
)

func mcpwireServer(tb testing.TB, opts *mcp.ServerOptions) *mcp.Server {
	srv, err := echotool.Mcpwire(opts)
	if err != nil {
		tb.Fatal(err)
	}
	return srv
}

func mcpwireCaller(cs *mcp.ClientSession) caller {
	return func(ctx context.Context, msg string) (string, error) {
		res, err := cs.CallTool(ctx, "echo", echoArgs{Message: msg})
		if err != nil {
			return "", err
		}
		if res.IsError || len(res.Content) != 1 {
			return "", fmt.Errorf("unexpected result %+v", res)
		}
		t, ok := res.Content[0].(*mcp.TextContent)
		if !ok {
			return "", fmt.Errorf("content %T, want text", res.Content[0])
		}
		return t.Text, nil
	}
}

// mcpwireMem connects in process (conn.InProcess), as mcp-go's
// in-process client does: each call is encoded, served on the caller's
// goroutine and its answer decoded, with no pipe between. The server has
// the default options.
func mcpwireMem(tb testing.TB) (caller, func()) {
	return mcpwireMemWith(tb, nil)
}

// mcpwirePooledMem is mcpwireMem with the server's handlers on a
// pool.Pool (ants workers that live on, their stacks grown), as
// ServerOptions.Conn allows.
func mcpwirePooledMem(tb testing.TB) (caller, func()) {
	return pooled(tb, mcpwireMemWith)
}

// pooled starts with a server whose handlers run on a pool of their own.
func pooled(tb testing.TB, start func(testing.TB, *mcp.ServerOptions) (caller, func())) (caller, func()) {
	p, err := pool.New(nil)
	if err != nil {
		tb.Fatal(err)
	}
	call, stop := start(tb, &mcp.ServerOptions{Conn: &conn.Options{Pool: p}})
	return call, func() {
		stop()
		p.Close(context.Background())
	}
}

func mcpwireMemWith(tb testing.TB, opts *mcp.ServerOptions) (caller, func()) {
	a, b := conn.InProcess()
	return mcpwireStreams(tb, opts, a, b)
}

// mcpwirePipe runs over conn.Pipe, an in-memory pipe with a reader on
// either side: mcpwire's sessions as over a real transport, without the
// system calls.
func mcpwirePipe(tb testing.TB) (caller, func()) {
	a, b := conn.Pipe()
	return mcpwireStreams(tb, nil, conn.NewMessageStream(a, nil), conn.NewMessageStream(b, nil))
}

// mcpwireClientOptions pin the version the peers' clients speak
// (pinnedVersion): a call in a session, not mcpwire's default
// (2026-07-28, stateless).
var mcpwireClientOptions = &mcp.ClientOptions{ProtocolVersion: pinnedVersion}

// mcpwireStreams connects a server session on a and a client on b.
func mcpwireStreams(tb testing.TB, opts *mcp.ServerOptions, a, b conn.Stream) (caller, func()) {
	srv := mcpwireServer(tb, opts)
	ctx := context.Background()
	ss, err := srv.Connect(ctx, a)
	if err != nil {
		tb.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "1"}, mcpwireClientOptions).Connect(ctx, b)
	if err != nil {
		tb.Fatal(err)
	}
	return mcpwireCaller(cs), func() {
		cs.Close()
		ss.Close()
		ss.Wait()
	}
}

// mcpwireStdio serves with Server.Run and connects with
// Client.ConnectIO, newline-delimited, over two os.Pipe pairs.
func mcpwireStdio(tb testing.TB) (caller, func()) {
	return mcpwireStdioWith(tb, nil)
}

// mcpwirePooledStdio is mcpwireStdio with the server's handlers on a
// pool.Pool.
func mcpwirePooledStdio(tb testing.TB) (caller, func()) {
	return pooled(tb, mcpwireStdioWith)
}

func mcpwireStdioWith(tb testing.TB, opts *mcp.ServerOptions) (caller, func()) {
	cs, stop := mcpwireStdioSession(tb, mcpwireServer(tb, opts))
	return mcpwireCaller(cs), stop
}

// mcpwireStdioSession runs srv with Server.Run and connects a client with
// Client.ConnectIO over two os.Pipe pairs.
func mcpwireStdioSession(tb testing.TB, srv *mcp.Server) (*mcp.ClientSession, func()) {
	sr, cw, cr, sw := osPipes(tb)
	ran := make(chan error, 1)
	go func() { ran <- srv.Run(context.Background(), &pipeRWC{sr, sw}) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "1"}, mcpwireClientOptions).ConnectIO(context.Background(), &pipeRWC{cr, cw})
	if err != nil {
		tb.Fatal(err)
	}
	return cs, func() {
		cs.Close()
		if err := <-ran; err != nil && !errors.Is(err, os.ErrClosed) {
			tb.Logf("mcpwire Run: %v", err)
		}
	}
}

// mcpwireHandler serves srv over Streamable HTTP in JSON response mode
// (application/json answers, no SSE), sessions on (the default), like
// the go-sdk's handler here.
func mcpwireHandler(srv *mcp.Server) *streamable.Handler {
	return streamable.NewHandler(srv, &streamable.Options{JSONResponse: true})
}

// mcpwireHTTP is mcpwire's own client (streamable.Connect) against its
// handler. The server has the default options.
func mcpwireHTTP(tb testing.TB) (caller, func()) {
	return mcpwireHTTPWith(tb, nil)
}

// mcpwirePooledHTTP is mcpwireHTTP with the server's handlers on a
// pool.Pool.
func mcpwirePooledHTTP(tb testing.TB) (caller, func()) {
	return pooled(tb, mcpwireHTTPWith)
}

func mcpwireHTTPWith(tb testing.TB, opts *mcp.ServerOptions) (caller, func()) {
	h := mcpwireHandler(mcpwireServer(tb, opts))
	hs := httptest.NewServer(h)
	hc := loopbackClient()
	cs, err := streamable.Connect(context.Background(), mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "1"}, mcpwireClientOptions), hs.URL+"/mcp", &streamable.ClientOptions{HTTPClientOptions: transport.HTTPClientOptions{Client: hc}})
	if err != nil {
		h.Close()
		hs.Close()
		tb.Fatal(err)
	}
	return mcpwireCaller(cs), func() {
		cs.Close()
		h.Close()
		hc.CloseIdleConnections()
		hs.Close()
	}
}

// mcpwireHTTPPlain drives mcpwire's handler with plainHTTP.
func mcpwireHTTPPlain(tb testing.TB) (caller, func()) {
	return mcpwireHTTPPlainWith(tb, nil)
}

// mcpwirePooledHTTPPlain drives mcpwire's handler, its server's
// handlers on a pool.Pool, with plainHTTP.
func mcpwirePooledHTTPPlain(tb testing.TB) (caller, func()) {
	return pooled(tb, mcpwireHTTPPlainWith)
}

func mcpwireHTTPPlainWith(tb testing.TB, opts *mcp.ServerOptions) (caller, func()) {
	h := mcpwireHandler(mcpwireServer(tb, opts))
	call, stop := plainHTTP(tb, h)
	return call, func() {
		stop()
		h.Close()
	}
}
