package bench

import (
	"context"
	"encoding/json"
	"net"
	"sync"
	"testing"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"github.com/creachadair/jrpc2/handler"
	"github.com/creachadair/jrpc2/server"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/sourcegraph/jsonrpc2"
)

// The peers' servers and clients of test_echo over TCP, each with its
// library's defaults, newline-delimited JSON.

// gethService is test_echo for go-ethereum's rpc.Server.
type gethService struct{}

// Echo is test_echo.
func (gethService) Echo(s string) string { return s }

// gethServer serves the listener with rpc.Server.ServeListener: each
// connection a codec of its own, each call a goroutine of its own.
func gethServer(tb testing.TB, ln net.Listener) func() {
	s := rpc.NewServer()
	if err := s.RegisterName("test", gethService{}); err != nil {
		tb.Fatal(err)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		s.ServeListener(ln)
	}()
	return func() {
		ln.Close()
		<-served
		s.Stop()
	}
}

// gethClient is rpc.DialIO over a TCP connection (rpc.Dial speaks HTTP,
// WebSocket or IPC; over a socket the codec is the same as IPC's).
func gethClient(tb testing.TB, addr string) (caller, func()) {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := rpc.DialIO(context.Background(), nc, nc)
	if err != nil {
		tb.Fatal(err)
	}
	return func(ctx context.Context, msg string) (string, error) {
			var got string
			err := c.CallContext(ctx, &got, echoMethod, msg)
			return got, err
		}, func() {
			nc.Close() // first: closing DialIO's client does not close it, and waits for its reader
			c.Close()
		}
}

// jrpc2Server runs server.Loop: a jrpc2.Server per connection, handlers
// from handler.New (params decoded by reflection).
func jrpc2Server(tb testing.TB, ln net.Listener) func() {
	svc := server.Static(handler.Map{echoMethod: handler.New(func(_ context.Context, p []string) (string, error) {
		return firstOf(p)
	})})
	served := make(chan error, 1)
	go func() { served <- server.Loop(context.Background(), server.NetAccepter(ln, channel.Line), svc, nil) }()
	return func() {
		ln.Close()
		if err := <-served; err != nil {
			tb.Errorf("jrpc2 server: %v", err)
		}
	}
}

// jrpc2Client is a jrpc2.Client on a channel.Line over the connection.
func jrpc2Client(tb testing.TB, addr string) (caller, func()) {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	c := jrpc2.NewClient(channel.Line(nc, nc), nil)
	return func(ctx context.Context, msg string) (string, error) {
		var got string
		err := c.CallResult(ctx, echoMethod, []string{msg}, &got)
		return got, err
	}, func() { c.Close() }
}

// sourcegraphServer accepts connections and serves each with a
// jsonrpc2.Conn on a plain (newline-delimited) object stream; its
// handler runs on the reading goroutine, as the library's default.
func sourcegraphServer(tb testing.TB, ln net.Listener) func() {
	h := jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
		var p []string
		if req.Params == nil || json.Unmarshal(*req.Params, &p) != nil {
			return nil, errNotOne
		}
		return firstOf(p)
	})
	var mu sync.Mutex
	var conns []*jsonrpc2.Conn
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			c := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewPlainObjectStream(nc), h)
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	return func() {
		ln.Close()
		<-accepted
		for _, c := range conns {
			c.Close()
			<-c.DisconnectNotify()
		}
	}
}

// sourcegraphClient is a jsonrpc2.Conn with no handler, on a plain object
// stream.
func sourcegraphClient(tb testing.TB, addr string) (caller, func()) {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	c := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewPlainObjectStream(nc), nil)
	return func(ctx context.Context, msg string) (string, error) {
			var got string
			err := c.Call(ctx, echoMethod, []string{msg}, &got)
			return got, err
		}, func() {
			c.Close()
			<-c.DisconnectNotify()
		}
}
