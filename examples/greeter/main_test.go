package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// ants (under the mcp package) starts goroutines when loaded: ignore what
// runs before the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m, goleak.IgnoreCurrent()) }

// TestGreeter_stdio: the server answers an MCP session on a byte stream
// (what main serves on standard input and output) with greet's
// structured output, and refuses arguments its schema does not allow.
func TestGreeter_stdio(t *testing.T) {
	srv, err := newServer()
	if err != nil {
		t.Fatal(err)
	}
	a, b := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), a) }()
	in := bufio.NewReader(b)
	send := func(line string) {
		t.Helper()
		if _, err := b.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() map[string]any {
		t.Helper()
		line, err := in.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return m
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := recv(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`)
	res, _ := recv()["result"].(map[string]any)
	if got, _ := res["structuredContent"].(map[string]any); got["text"] != "Hello, Ada!" {
		t.Fatalf("tools/call greet: %v", res)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{"name":7}}}`)
	res, _ = recv()["result"].(map[string]any)
	if res["isError"] != true || !strings.Contains(toJSON(res), "name") {
		t.Fatalf("tools/call greet with a number: %v, want an error naming the argument", res)
	}
	b.Close()
	<-done
}

// TestGreeter_streamableHTTP: the same server behind the Streamable HTTP
// handler main mounts at /mcp, called by the mcp package's client.
func TestGreeter_streamableHTTP(t *testing.T) {
	srv, err := newServer()
	if err != nil {
		t.Fatal(err)
	}
	h := streamable.NewHandler(srv, nil)
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ts := httptest.NewServer(mux)
	defer ts.Close()
	ctx := context.Background()
	session, err := streamable.Connect(ctx, mcp.NewClient(nil, nil), ts.URL+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, "greet", GreetArgs{Name: "Grace"})
	if err != nil {
		t.Fatal(err)
	}
	if got := toJSON(res.StructuredContent); got != `{"text":"Hello, Grace!"}` {
		t.Fatalf("structuredContent = %s", got)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
