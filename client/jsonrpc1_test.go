package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
)

// A server that speaks only JSON-RPC 1.0, as Bitcoin Core does: it
// refuses any request with a jsonrpc member or params that are not an
// array, and answers {"result":…,"error":…,"id":…}.
func TestClient_speaksJSONRPC1(t *testing.T) {
	answer1 := func(r wireRequest, result, err string) []string {
		return []string{`{"result":` + result + `,"error":` + err + `,"id":` + string(r.ID) + `}`}
	}
	srv := newScripted(t, func(r wireRequest) ([]string, bool) {
		if r.JSONRPC != nil || len(r.Params) == 0 || r.Params[0] != '[' {
			return answer1(r, "null", `{"code":-32600,"message":"not JSON-RPC 1.0"}`), false
		}
		if string(r.ID) == "null" {
			return nil, false // a notification
		}
		switch r.Method {
		case "getblockcount":
			return answer1(r, "840000", "null"), false
		case "flaky":
			return answer1(r, "null", `{"code":-32000,"message":"busy","data":{"retryAfterMs":1}}`), false
		}
		return answer1(r, "null", `{"code":-32601,"message":"Method not found"}`), false
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, srv.addr(), &client.Options{
		JSONRPC1:   true,
		Idempotent: []string{"flaky"},
		Retry:      client.Retry{MaxAttempts: 2, Backoff: client.Backoff{Base: time.Millisecond, Max: 5 * time.Millisecond}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	var height int
	if err := c.Call(ctx, "getblockcount", nil, &height); err != nil || height != 840000 {
		t.Fatalf("getblockcount = %d, %v", height, err)
	}
	var e *codec.Error
	if err := c.Call(ctx, "nope", []int{1}, nil); !errors.As(err, &e) || e.Code != codec.CodeMethodNotFound {
		t.Fatalf("nope: %v, want -32601", err)
	}
	// -32000 is retried as in 2.0: twice asked, twice refused.
	if err := c.Call(ctx, "flaky", nil, nil); !errors.As(err, &e) || e.Code != codec.CodeOverloaded || srv.count("flaky") != 2 {
		t.Fatalf("flaky: %v after %d requests, want -32000 after 2", err, srv.count("flaky"))
	}
	if err := c.Call(ctx, "getblockcount", map[string]int{"a": 1}, nil); !errors.Is(err, conn.ErrParamsNotArray) {
		t.Fatalf("object params: %v, want ErrParamsNotArray", err)
	}
	if _, err := c.Batch(ctx, []client.Request{{Method: "getblockcount"}}); !errors.Is(err, conn.ErrBatchJSONRPC1) {
		t.Fatalf("Batch: %v, want ErrBatchJSONRPC1", err)
	}
	if err := c.Notify(ctx, "tick", []int{1}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the notification", func() bool { return srv.count("tick") == 1 })
}
