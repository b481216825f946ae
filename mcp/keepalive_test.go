package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/mcptest"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

type (
	logBuffer = mcptest.LogBuffer
	wireMsg   = mcptest.WireMsg
)

// In a synctest bubble (io.Pipe, virtual time): the three pings must be
// answered within the 50 ms timeout, which a loaded machine need not do.
func TestKeepAlive_serverPingsOverStdioAndClosesASilentClient(t *testing.T) {
	synctest.Test(t, testKeepAlive_serverPingsOverStdioAndClosesASilentClient)
}

func testKeepAlive_serverPingsOverStdioAndClosesASilentClient(t *testing.T) {
	var logs logBuffer
	srv := mcp.NewServer(nil, &mcp.ServerOptions{
		KeepAlive: mcp.KeepAlive{Interval: 10 * time.Millisecond, Timeout: 50 * time.Millisecond, MaxMissed: 2},
		Conn:      &conn.Options{Logger: logs.Logger()},
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), &transport.Stdio{R: inR, W: outW}) }()
	defer inW.Close()

	io.WriteString(inW, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"quiet-one","version":"1"}}}`+"\n")
	lines := bufio.NewScanner(outR)
	answered := 0
	for answered < 3 && lines.Scan() {
		var m wireMsg
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if string(m.ID) == `"init"` {
			io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
			continue
		}
		if m.Method != "ping" {
			t.Fatalf("unexpected %s", lines.Bytes())
		}
		io.WriteString(inW, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{}}`+"\n")
		answered++
	}
	if answered != 3 {
		t.Fatalf("%d pings answered: %v; log %s", answered, lines.Err(), logs.String())
	}
	// The client falls silent: it reads but answers nothing.
	go io.Copy(io.Discard, outR)
	if err := waitErr(t, func() error { return <-done }); !errors.Is(err, mcp.ErrPingTimeout) {
		t.Fatalf("Run returned %v, want ErrPingTimeout", err)
	}
	if l := logs.String(); !strings.Contains(l, "did not answer pings") || !strings.Contains(l, "missed=2") || !strings.Contains(l, "client=quiet-one") {
		t.Fatalf("log: %s", l)
	}
}

// pingCounter counts the pings that cross a stream.
type pingCounter struct {
	io.ReadWriteCloser
	n atomic.Int32
}

func (c *pingCounter) Read(p []byte) (int, error) {
	n, err := c.ReadWriteCloser.Read(p)
	c.n.Add(int32(bytes.Count(p[:n], []byte(`"method":"ping"`))))
	return n, err
}

// In a synctest bubble (io.Pipe, virtual time).
func TestKeepAlive_clientPingsOverStdio(t *testing.T) {
	synctest.Test(t, testKeepAlive_clientPingsOverStdio)
}

func testKeepAlive_clientPingsOverStdio(t *testing.T) {
	srv := echoServer(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	counted := &pingCounter{ReadWriteCloser: &transport.Stdio{R: inR, W: outW}}
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), counted) }()

	// Keep-alive pings are of the versions with initialize: 2026-07-28
	// has no ping.
	c := mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: mcp.LatestVersion, KeepAlive: mcp.KeepAlive{Interval: 10 * time.Millisecond, Timeout: 5 * time.Second}})
	cs, err := c.ConnectIO(context.Background(), &transport.Stdio{R: outR, W: inW})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for counted.n.Load() < 5 {
		if time.Now().After(deadline) {
			t.Fatalf("%d pings reached the server", counted.n.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := cs.CallTool(context.Background(), "echo", map[string]string{"message": "still here"}); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	if err := cs.Wait(); err != nil {
		t.Fatalf("a session closed by its client ended with %v", err)
	}
	<-done
}

// silentServer answers initialize and never answers ping: a server that
// hangs. It serves the end of a pipe.
func silentServer(t *testing.T, mc conn.MessageConn) {
	t.Helper()
	r := router.New()
	r.Register("initialize", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		return json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"hung","version":"1"}}`), nil
	}), nil)
	r.Register("ping", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}), nil)
	r.Register("notifications/initialized", router.HandlerFunc(func(context.Context, *router.Request) (any, error) { return nil, nil }), nil)
	c := conn.NewStream(conn.NewMessageStream(mc, nil), &conn.Options{Router: r})
	t.Cleanup(func() { c.Close() })
}

// In a synctest bubble (conn.Pipe, virtual time): the session ends after
// exactly three missed pings, each 30 ms.
func TestKeepAlive_clientClosesASilentServer(t *testing.T) {
	synctest.Test(t, testKeepAlive_clientClosesASilentServer)
}

func testKeepAlive_clientClosesASilentServer(t *testing.T) {
	a, b := conn.Pipe()
	silentServer(t, b)
	var logs logBuffer
	c := mcp.NewClient(nil, &mcp.ClientOptions{
		KeepAlive: mcp.KeepAlive{Interval: 10 * time.Millisecond, Timeout: 30 * time.Millisecond, MaxMissed: 3},
		Conn:      &conn.Options{Logger: logs.Logger()},
	})
	start := time.Now()
	cs, err := c.Connect(context.Background(), conn.NewMessageStream(a, nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := waitErr(t, cs.Wait); !errors.Is(err, mcp.ErrPingTimeout) {
		t.Fatalf("Wait: %v, want ErrPingTimeout", err)
	}
	if d := time.Since(start); d < 3*30*time.Millisecond || d > 3*(10+30)*time.Millisecond {
		t.Fatalf("closed after %v: want three pings missed, each within an interval and a timeout", d)
	}
	if l := logs.String(); !strings.Contains(l, "did not answer pings") || !strings.Contains(l, "missed=3") || !strings.Contains(l, "server=hung") {
		t.Fatalf("log: %s", l)
	}
}
