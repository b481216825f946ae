package bench

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"testing"

	mgclient "github.com/mark3labs/mcp-go/client"
	mgtransport "github.com/mark3labs/mcp-go/client/transport"
	mg "github.com/mark3labs/mcp-go/mcp"
	mgserver "github.com/mark3labs/mcp-go/server"

	"github.com/mcpwire/mcpwire/bench/echotool"
)

// mcpgoServer validates arguments against the input schema, as mcpwire
// and the go-sdk always do (mcp-go does only when asked).
func mcpgoServer() *mgserver.MCPServer { return echotool.MCPGo() }

// mcpgoStart starts c, runs the handshake and returns the echo caller.
func mcpgoStart(tb testing.TB, c *mgclient.Client) caller {
	mcpgoInit(tb, c)
	return func(ctx context.Context, msg string) (string, error) {
		res, err := c.CallTool(ctx, mg.CallToolRequest{Params: mg.CallToolParams{Name: "echo", Arguments: echoArgs{Message: msg}}})
		if err != nil {
			return "", err
		}
		if res.IsError || len(res.Content) != 1 {
			return "", fmt.Errorf("unexpected result %+v", res)
		}
		t, ok := res.Content[0].(mg.TextContent)
		if !ok {
			return "", fmt.Errorf("content %T, want text", res.Content[0])
		}
		return t.Text, nil
	}
}

// mcpgoInit starts c and runs the handshake, pinned to 2025-11-25 (the
// client would try the stateless 2026-07-28 protocol first).
func mcpgoInit(tb testing.TB, c *mgclient.Client) {
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		tb.Fatal(err)
	}
	_, err := c.Initialize(ctx, mg.InitializeRequest{Params: mg.InitializeParams{
		ProtocolVersion: pinnedVersion,
		ClientInfo:      mg.Implementation{Name: "bench-client", Version: "1"},
	}})
	if err != nil {
		tb.Fatal(err)
	}
}

// mcpgoMem uses mcp-go's in-process transport, its in-memory one: the
// request is marshalled and handed to the server on the caller's
// goroutine, the response marshalled and unmarshalled again. There is no
// pipe, framing or goroutine hand-off, which favours mcp-go here.
func mcpgoMem(tb testing.TB) (caller, func()) {
	c, err := mgclient.NewInProcessClient(mcpgoServer())
	if err != nil {
		tb.Fatal(err)
	}
	return mcpgoStart(tb, c), func() { c.Close() }
}

// mcpgoStdio runs mcp-go's StdioServer.Listen and its stdio client
// transport (transport.NewIO) over two os.Pipe pairs. The StdioServer
// keeps its session in a package variable: one at a time per process.
func mcpgoStdio(tb testing.TB) (caller, func()) {
	c, stop := mcpgoStdioClient(tb, mcpgoServer())
	return mcpgoStart(tb, c), stop
}

// mcpgoStdioClient serves srv with StdioServer.Listen and returns a client
// over transport.NewIO, not yet started.
func mcpgoStdioClient(tb testing.TB, srv *mgserver.MCPServer) (*mgclient.Client, func()) {
	sr, cw, cr, sw := osPipes(tb)
	ss := mgserver.NewStdioServer(srv)
	ss.SetErrorLogger(log.New(io.Discard, "", 0))
	ctx, cancel := context.WithCancel(context.Background())
	listened := make(chan error, 1)
	go func() { listened <- ss.Listen(ctx, sr, sw) }()
	c := mgclient.NewClient(mgtransport.NewIO(cr, cw, nil))
	return c, func() {
		c.Close() // closes cw: the server reads EOF
		<-listened
		cancel()
		sr.Close()
		sw.Close()
		cr.Close()
	}
}

// mcpgoHandler serves one server over Streamable HTTP with mcp-go's
// defaults: answers are application/json unless the handler sends
// notifications (this one sends none); session ids are issued, not
// tracked.
func mcpgoHandler() http.Handler { return echotool.MCPGoHandler() }

// mcpgoHTTP is mcp-go's own Streamable HTTP client against its handler.
func mcpgoHTTP(tb testing.TB) (caller, func()) {
	hs := httptest.NewServer(mcpgoHandler())
	hc := loopbackClient()
	c, err := mgclient.NewStreamableHttpClient(hs.URL+"/mcp", mgtransport.WithHTTPBasicClient(hc))
	if err != nil {
		hs.Close()
		tb.Fatal(err)
	}
	call := mcpgoStart(tb, c)
	return call, func() {
		c.Close()
		hc.CloseIdleConnections()
		hs.Close()
	}
}

// mcpgoHTTPPlain drives mcp-go's handler with plainHTTP.
func mcpgoHTTPPlain(tb testing.TB) (caller, func()) {
	return plainHTTP(tb, mcpgoHandler())
}
