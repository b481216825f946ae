package main

import (
	"context"
	"encoding/json"
	"errors"
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
	if err := registerSpecMethods(srv, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	ss, err := srv.Connect(context.Background(), nil) // served body by body
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	call := func(params string) (any, error) {
		var answer []byte
		body := `{"jsonrpc":"2.0","id":1,"method":"subtract","params":` + params + `}`
		if err := ss.Conn().ServeBody(context.Background(), []byte(body), func(m []byte) { answer = append(answer, m...) }); err != nil {
			return nil, err
		}
		var resp struct {
			Result any          `json:"result"`
			Error  *codec.Error `json:"error"`
		}
		if err := json.Unmarshal(answer, &resp); err != nil {
			return nil, err
		}
		if resp.Error != nil {
			return nil, resp.Error
		}
		return resp.Result, nil
	}
	for params, field := range map[string]string{
		`[1]`:                            "subtrahend",
		`{"minuend":1}`:                  "subtrahend",
		`{"subtrahend":1}`:               "minuend",
		`{"Minuend":3,"subtrahend":1}`:   "minuend",
		`{"minuend":3,"SUBTRAHEND":1.5}`: "subtrahend",
	} {
		res, err := call(params)
		var ce *codec.Error
		if !errors.As(err, &ce) || ce.Code != codec.CodeInvalidParams || ce.Data.(map[string]any)["field"] != field {
			t.Errorf("subtract %s = %v, %v; want -32602 naming %s", params, res, err, field)
		}
	}
	if res, err := call(`{"minuend":0,"subtrahend":0}`); err != nil || res != float64(0) {
		t.Errorf("subtract of zeros = %v, %v", res, err)
	}
}
