package mcp_test

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/mcptest"
	"github.com/mcpwire/mcpwire/transport"
)

// Helpers shared with mcp/streamable's tests.
var (
	echoServer = mcptest.EchoServer
	addEcho    = mcptest.AddEcho
	must       = mcptest.Must
	waitErr    = mcptest.WaitErr
)

func TestRun_servesNewlineDelimitedStdio(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := echoServer(t)
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), &transport.Stdio{R: inR, W: outW}) }()

	lines := bufio.NewScanner(outR)
	send := func(s string) string {
		t.Helper()
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
		if !lines.Scan() {
			t.Fatalf("no answer: %v", lines.Err())
		}
		return lines.Text()
	}
	if got := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`); !strings.Contains(got, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("got %s", got)
	}
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	if got, want := send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"a\nb"}}}`), `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"a\nb"}]}}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	inW.Close() // the client closes the server's input: the session ends
	go io.Copy(io.Discard, outR)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
}

func TestRun_endsWhenTheContextIsDone(t *testing.T) {
	srv := echoServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	pr, pw := io.Pipe()
	go func() { done <- srv.Run(ctx, &transport.Stdio{R: pr, W: io.Discard}) }()
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
	pw.Close()
}

func TestBind_sessionsOfATransportServer(t *testing.T) {
	srv := echoServer(t)
	ts := transport.NewServer(srv)
	ln, err := transport.Listen(context.Background(), "tcp://127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go ts.Serve(ln)
	defer ts.Shutdown(context.Background())

	c, err := transport.Dial(context.Background(), transport.URL(ln), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if _, err := c.CallRaw(ctx, "initialize", map[string]any{"protocolVersion": "2025-03-26", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "c", "version": "1"}}); err != nil {
		t.Fatal(err)
	}
	res, err := c.CallRaw(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "over tcp"}})
	if err != nil || string(res) != `{"content":[{"type":"text","text":"over tcp"}]}` {
		t.Fatalf("got %s, %v", res, err)
	}
	sessions := srv.Sessions()
	if len(sessions) != 1 || sessions[0].ProtocolVersion() != "2025-03-26" || sessions[0].Conn() == nil {
		t.Fatalf("sessions %v", sessions)
	}
}
