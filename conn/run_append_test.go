package conn_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// A handler that encodes its own result (router.AppendHandler: Func's)
// is answered like any other, in each of its outcomes, inline, pooled and
// in a batch: a result, its error with its code, -32603 for a result that
// cannot be encoded and for a panic, and nothing of the response's head
// left behind by a failure.
func TestConn_appendHandlerOutcomes(t *testing.T) {
	for _, inline := range []bool{true, false} {
		r := router.New()
		opts := &router.MethodOptions{Inline: inline}
		must := func(err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		must(r.Register("echo", router.Func(func(_ context.Context, p []string) (string, error) { return p[0], nil }), opts))
		must(r.Register("fail", router.Func(func(context.Context, []string) (string, error) {
			return "", codec.NewError(codec.CodeForbidden, "no")
		}), opts))
		must(r.Register("chan", router.Func(func(context.Context, []string) (chan int, error) { return make(chan int), nil }), opts))
		must(r.Register("panic", router.Func(func(context.Context, []string) (string, error) { panic("boom") }), opts))
		_, p := serve(t, r, nil)
		p.send(`[{"jsonrpc":"2.0","id":1,"method":"fail","params":["x"]},{"jsonrpc":"2.0","id":2,"method":"chan","params":["x"]},{"jsonrpc":"2.0","id":3,"method":"panic","params":["x"]},{"jsonrpc":"2.0","id":4,"method":"echo","params":["a\"b"]}]`,
			`{"jsonrpc":"2.0","id":5,"method":"fail","params":["x"]}`,
			`{"jsonrpc":"2.0","id":6,"method":"chan","params":["x"]}`,
			`{"jsonrpc":"2.0","id":7,"method":"panic","params":["x"]}`,
			`{"jsonrpc":"2.0","id":8,"method":"echo","params":["plain"]}`)
		// Pooled, the answers come in any order: the batch's array and
		// the four alone.
		got := map[float64]map[string]any{}
		for range 5 {
			switch v := p.recv().(type) {
			case []any:
				if len(v) != 4 {
					t.Fatalf("inline %v: batch answered %v", inline, v)
				}
				for _, e := range v {
					m := e.(map[string]any)
					got[m["id"].(float64)] = m
				}
			case map[string]any:
				got[v["id"].(float64)] = v
			}
		}
		for id, want := range map[float64]any{1: codec.CodeForbidden, 2: codec.CodeInternalError, 3: codec.CodeInternalError, 4: `a"b`,
			5: codec.CodeForbidden, 6: codec.CodeInternalError, 7: codec.CodeInternalError, 8: "plain"} {
			m := got[id]
			if m == nil || m["jsonrpc"] != "2.0" {
				t.Fatalf("inline %v: id %v answered %v", inline, id, m)
			}
			if code, isCode := want.(codec.Code); isCode {
				if _, has := m["result"]; has || errCode(t, m) != int(code) {
					t.Errorf("inline %v: id %v answered %v, want error %d", inline, id, m, code)
				}
			} else if m["result"] != want {
				t.Errorf("inline %v: id %v answered %v, want result %q", inline, id, m, want)
			}
		}
	}
	var re *router.ResultError
	if err := error(&router.ResultError{Err: errors.New("x")}); !errors.As(err, &re) || errors.Unwrap(err).Error() != "x" {
		t.Errorf("ResultError does not unwrap: %v", err)
	}
}
