package demoserver

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
)

// TestSubtract_requiresBothOperands: subtract answers -32602 naming the
// missing operand rather than subtracting a zero it was never given.
func TestSubtract_requiresBothOperands(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	if err := registerSpecMethods(srv, slog.New(slog.NewTextHandler(io.Discard, nil)), true); err != nil {
		t.Fatal(err)
	}
	call := bodyCaller(t, srv)
	for params, field := range map[string]string{
		`[1]`:                            "subtrahend",
		`{"minuend":1}`:                  "subtrahend",
		`{"subtrahend":1}`:               "minuend",
		`{"Minuend":3,"subtrahend":1}`:   "minuend",
		`{"minuend":3,"SUBTRAHEND":1.5}`: "subtrahend",
	} {
		res, e := call("subtract", params)
		if e == nil || e.Code != codec.CodeInvalidParams || e.Data.(map[string]any)["field"] != field {
			t.Errorf("subtract %s = %s, %v; want -32602 naming %s", params, res, e, field)
		}
	}
	if res, e := call("subtract", `{"minuend":0,"subtrahend":0}`); e != nil || string(res) != "0" {
		t.Errorf("subtract of zeros = %s, %v", res, e)
	}
}

// bodyCaller connects a session of srv served body by body, closed when
// the test ends, and returns a function that sends it one request with
// id 1 and returns the result or the error of its answer.
func bodyCaller(t *testing.T, srv *mcp.Server) func(method, params string) (json.RawMessage, *codec.Error) {
	t.Helper()
	ss, err := srv.Connect(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return func(method, params string) (json.RawMessage, *codec.Error) {
		t.Helper()
		var answer []byte
		if err := ss.Conn().ServeBody(context.Background(), []byte(request("1", method, params)), func(m []byte) { answer = append(answer, m...) }); err != nil {
			t.Fatal(err)
		}
		var resp struct {
			Result json.RawMessage `json:"result"`
			Error  *codec.Error    `json:"error"`
		}
		if err := json.Unmarshal(answer, &resp); err != nil {
			t.Fatalf("%s %s: %q: %v", method, params, answer, err)
		}
		return resp.Result, resp.Error
	}
}
