package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// TestSubtract_requiresBothOperands: subtract answers -32602 naming the
// missing operand rather than subtracting a zero it was never given.
func TestSubtract_requiresBothOperands(t *testing.T) {
	r := router.New()
	if err := register(r, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	e, _ := r.Lookup([]byte("subtract"))
	call := func(params string) (any, error) {
		return e.Handler.Handle(context.Background(), &router.Request{Method: "subtract", ID: []byte("1"), Params: []byte(params)})
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
