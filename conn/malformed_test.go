package conn_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
)

// A malformed response whose id names a call waiting fails that call at
// once with -32603 saying what was wrong; the session goes on serving.
func TestConn_Call_malformedResponseFailsItsCallAtOnce(t *testing.T) {
	cases := []struct {
		name, msg, why string
		answered       bool // the session answers it -32600 (it is no valid request either)
	}{
		{"both", `{"jsonrpc":"2.0","id":ID,"result":1,"error":{"code":1,"message":"x"}}`, "exactly one of result and error", false},
		{"neither", `{"jsonrpc":"2.0","id":ID}`, "neither result nor error", true},
		{"error not an object", `{"jsonrpc":"2.0","id":ID,"error":"boom"}`, "error must be an object", false},
		{"error without code", `{"jsonrpc":"2.0","id":ID,"error":{"message":"x"}}`, "error.code is missing", false},
		{"code a string", `{"jsonrpc":"2.0","id":ID,"error":{"code":"-32000","message":"x"}}`, "error.code must be an integer", false},
		{"code a fraction", `{"jsonrpc":"2.0","id":ID,"error":{"code":-32000.5,"message":"x"}}`, "error.code must be an integer", false},
		{"code too large", `{"jsonrpc":"2.0","id":ID,"error":{"code":4294967296,"message":"x"}}`, "error.code must be an integer", false},
		{"message a number", `{"jsonrpc":"2.0","id":ID,"error":{"code":1,"message":7}}`, "error.message must be a string", false},
		{"code twice", `{"jsonrpc":"2.0","id":ID,"error":{"code":1,"code":2,"message":"x"}}`, "duplicated member in error", false},
		{"jsonrpc wrong", `{"jsonrpc":"1.0","id":ID,"result":1}`, `jsonrpc must be "2.0"`, false},
		{"jsonrpc missing", `{"id":ID,"result":1}`, `jsonrpc must be "2.0"`, false},
		{"result twice", `{"jsonrpc":"2.0","id":ID,"result":1,"result":2}`, "duplicated member", false},
	}
	var unmatched atomic.Int32
	c, p := newScriptedPeer(t, &conn.Options{OnUnmatched: func(conn.Unmatched, []byte) { unmatched.Add(1) }})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Without the fix the call waits for this deadline.
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- c.Call(ctx, "m", nil, nil) }()
			id := string(p.read()[0].ID)
			p.write(strings.ReplaceAll(tc.msg, "ID", id))
			if tc.answered {
				m := p.read()[0]
				if m.Kind != codec.KindError || string(m.ID) != id || !strings.Contains(string(m.ErrorObj), "-32600") {
					t.Errorf("answered %v %s %s, want -32600 with id %s", m.Kind, m.ID, m.ErrorObj, id)
				}
			}
			err := <-done
			var e *codec.Error
			if !errors.As(err, &e) || e.Code != codec.CodeInternalError ||
				!strings.HasPrefix(e.Message, conn.MalformedResponsePrefix) || !strings.Contains(e.Message, tc.why) {
				t.Fatalf("call: %v, want -32603 %q…%q", err, conn.MalformedResponsePrefix, tc.why)
			}
		})
	}
	// The session still serves: a well-formed error response is read as
	// such, data and all.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Call(ctx, "m", nil, nil) }()
	id := string(p.read()[0].ID)
	p.write(`{"jsonrpc":"2.0","id":` + id + `,"error":{"message":"busy","data":{"retryAfterMs":5},"code":-32000}}`)
	var e *codec.Error
	if err := <-done; !errors.As(err, &e) || e.Code != -32000 || e.Message != "busy" || string(e.Data.(codec.Raw)) != `{"retryAfterMs":5}` {
		t.Fatalf("well-formed error: %#v", err)
	}
	if n := unmatched.Load(); n != 0 {
		t.Errorf("%d responses told to OnUnmatched, want none", n)
	}
}

// A malformed response whose id cannot be read, or names no call waiting,
// is dropped: the call waits for its own response.
func TestConn_Call_malformedResponseToNoCallIsDropped(t *testing.T) {
	var unmatched atomic.Int32
	c, p := newScriptedPeer(t, &conn.Options{OnUnmatched: func(conn.Unmatched, []byte) { unmatched.Add(1) }})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	var got string
	go func() { done <- c.Call(ctx, "m", nil, &got) }()
	id := string(p.read()[0].ID)
	p.write(
		`{"jsonrpc":"2.0","id":99999,"result":1,"error":{"code":1,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":"`+id+`","result":1,"error":{}}`,
		`{"jsonrpc":"2.0","id":[`+id+`],"result":1}`,
		`{"jsonrpc":"2.0","id":`+id+`,"id":`+id+`,"result":1}`,
		`{"jsonrpc":"1.0","result":1}`,
		`{"jsonrpc":"2.0","id":`+id+`,"result":"mine"}`,
	)
	if err := <-done; err != nil || got != "mine" {
		t.Fatalf("call = %q, %v", got, err)
	}
	if n := unmatched.Load(); n != 0 {
		t.Errorf("%d malformed responses told to OnUnmatched, want none", n)
	}
}
