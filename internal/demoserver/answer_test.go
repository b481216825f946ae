package demoserver

import (
	"net/http"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// With its defaults the demo server answers a tools/call of echo, which
// streams nothing, with one JSON body (no event stream, no stored event),
// and test_tool_with_logging, which logs before its result, on an event
// stream of its own that carries the logs, then the result.
func TestDemoserver_answersJSONUnlessTheToolStreams(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(), fastIdleCleaner)
	s, err := Start([]string{"-listen", "http://127.0.0.1:0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := newSessionClient(t, s.URL())
	id, resp, body := c.open()
	if id == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	resp, body = c.do(http.MethodPost, "/mcp", id, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" ||
		string(body) != `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}}` {
		t.Fatalf("echo: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	resp, body = c.do(http.MethodPost, "/mcp", id, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_tool_with_logging","arguments":{}}}`)
	text := string(body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" ||
		strings.Count(text, `"method":"notifications/message"`) < 3 ||
		strings.Index(text, `"method":"notifications/message"`) > strings.Index(text, `"id":3,"result"`) {
		t.Fatalf("test_tool_with_logging: %d %v %s", resp.StatusCode, resp.Header, text)
	}
}
