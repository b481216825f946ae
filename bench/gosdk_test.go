package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwire/mcpwire/bench/echotool"
)

// The go-sdk's client would try the stateless 2026-07-28 protocol first;
// every implementation here speaks 2025-11-25 (initialize, a session).
var gosdkSessionOptions = &sdk.ClientSessionOptions{ProtocolVersion: pinnedVersion}

func gosdkServer() *sdk.Server { return echotool.GoSDK() }

func gosdkClient() *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: "bench-client", Version: "1"}, nil)
}

func gosdkCaller(cs *sdk.ClientSession) caller {
	return func(ctx context.Context, msg string) (string, error) {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: echoArgs{Message: msg}})
		if err != nil {
			return "", err
		}
		if res.IsError || len(res.Content) != 1 {
			return "", fmt.Errorf("unexpected result %+v", res)
		}
		t, ok := res.Content[0].(*sdk.TextContent)
		if !ok {
			return "", fmt.Errorf("content %T, want text", res.Content[0])
		}
		return t.Text, nil
	}
}

// gosdkMem connects over sdk.NewInMemoryTransports: a net.Pipe carrying
// newline-delimited JSON.
func gosdkMem(tb testing.TB) (caller, func()) {
	st, ct := sdk.NewInMemoryTransports()
	return gosdkConnect(tb, gosdkServer(), st, ct)
}

// gosdkStdio uses sdk.IOTransport (newline-delimited JSON) on both sides
// over two os.Pipe pairs.
func gosdkStdio(tb testing.TB) (caller, func()) {
	sr, cw, cr, sw := osPipes(tb)
	return gosdkConnect(tb, gosdkServer(), &sdk.IOTransport{Reader: sr, Writer: sw}, &sdk.IOTransport{Reader: cr, Writer: cw})
}

// gosdkStdioSession is gosdkStdio's session with srv.
func gosdkStdioSession(tb testing.TB, srv *sdk.Server) (*sdk.ClientSession, func()) {
	sr, cw, cr, sw := osPipes(tb)
	return gosdkSession(tb, srv, &sdk.IOTransport{Reader: sr, Writer: sw}, &sdk.IOTransport{Reader: cr, Writer: cw})
}

func gosdkConnect(tb testing.TB, srv *sdk.Server, st, ct sdk.Transport) (caller, func()) {
	cs, stop := gosdkSession(tb, srv, st, ct)
	return gosdkCaller(cs), stop
}

// gosdkSession connects srv over st and a client over ct.
func gosdkSession(tb testing.TB, srv *sdk.Server, st, ct sdk.Transport) (*sdk.ClientSession, func()) {
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	cs, err := gosdkClient().Connect(ctx, ct, gosdkSessionOptions)
	if err != nil {
		tb.Fatal(err)
	}
	return cs, func() {
		cs.Close()
		ss.Wait()
	}
}

// gosdkHandler serves one server over Streamable HTTP in JSON response
// mode (application/json answers, no SSE), sessions on (the default).
// Its clients end their sessions themselves.
func gosdkHandler() http.Handler {
	h, _ := echotool.GoSDKHandler(true)
	return h
}

// gosdkHTTP is the go-sdk's own client (sdk.StreamableClientTransport)
// against its own handler.
func gosdkHTTP(tb testing.TB) (caller, func()) {
	hs := httptest.NewServer(gosdkHandler())
	hc := loopbackClient()
	cs, err := gosdkClient().Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: hc}, gosdkSessionOptions)
	if err != nil {
		hs.Close()
		tb.Fatal(err)
	}
	return gosdkCaller(cs), func() {
		cs.Close()
		hc.CloseIdleConnections()
		hs.Close()
	}
}

// gosdkHTTPPlain drives the go-sdk's handler with plainHTTP.
func gosdkHTTPPlain(tb testing.TB) (caller, func()) {
	return plainHTTP(tb, gosdkHandler())
}
