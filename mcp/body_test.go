package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
)

// outbox is the sending half of an HTTP-like transport: it reads nothing
// (every message of the client comes as a body given to ServeBody) and
// hands every message the server sends on its own (requests,
// notifications) to out, as a GET stream would carry them.
type outbox struct {
	out  chan []byte
	done chan struct{}
}

func newOutbox() *outbox { return &outbox{out: make(chan []byte, 16), done: make(chan struct{})} }

func (o *outbox) ReadMessage() ([]byte, error) {
	<-o.done
	return nil, io.EOF
}

func (o *outbox) WriteMessage(msg []byte) error {
	select {
	case o.out <- append([]byte(nil), msg...):
		return nil
	case <-o.done:
		return io.ErrClosedPipe
	}
}

func (o *outbox) Close() error {
	select {
	case <-o.done:
	default:
		close(o.done)
	}
	return nil
}

// serveBody gives one body to the session and returns its answer ("" for
// none), as an HTTP POST would.
func serveBody(t *testing.T, c *conn.Conn, body string) string {
	t.Helper()
	var got string
	if err := c.ServeBody(context.Background(), []byte(body), func(msg []byte) { got = string(msg) }); err != nil {
		t.Fatal(err)
	}
	return got
}

// A session served body by body: each answer goes to the body it came in,
// and the answer to the server's own request arrives in a body of its own.
func TestSession_servedBodyByBody(t *testing.T) {
	srv := mcp.NewServer(nil, nil)
	must(t, srv.AddTool(&mcp.Tool{Name: "test_sampling"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 100,
			Messages: []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}}})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "LLM response: " + res.Content[0].(*mcp.TextContent).Text}}}, nil
	}))
	ob := newOutbox()
	ss, err := srv.Connect(context.Background(), conn.NewMessageStream(ob, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ss.Close(); ss.Wait() }()
	c := ss.Conn()

	got := serveBody(t, c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"h","version":"1"}}}`)
	if !strings.Contains(got, `"id":1,"result":{"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %s", got)
	}
	if got := serveBody(t, c, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); got != "" {
		t.Fatalf("a notification got %s", got)
	}

	answer := make(chan string, 1)
	go func() {
		var got string
		c.ServeBody(context.Background(), []byte(`{"jsonrpc":"2.0","id":"post-2","method":"tools/call","params":{"name":"test_sampling"}}`), func(msg []byte) { got = string(msg) })
		answer <- got
	}()
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	select {
	case msg := <-ob.out:
		if err := codec.Unmarshal(msg, &req); err != nil || req.Method != "sampling/createMessage" {
			t.Fatalf("server sent %s", msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no sampling request")
	}
	resp := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m"}}`
	if got := serveBody(t, c, resp); got != "" {
		t.Fatalf("a response got %s", got)
	}
	select {
	case got := <-answer:
		if want := `{"jsonrpc":"2.0","id":"post-2","result":{"content":[{"type":"text","text":"LLM response: hello"}]}}`; got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer to the tool call")
	}
}
