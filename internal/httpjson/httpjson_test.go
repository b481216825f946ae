package httpjson

import (
	"net/http/httptest"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
)

func TestIsJSON(t *testing.T) {
	for ct, want := range map[string]bool{
		"application/json":                 true,
		"Application/JSON; charset=utf-8":  true,
		" application/json ;charset=utf-8": true,
		"text/plain":                       false,
		" APPLICATION/JSON ":               true,
		"application/jsonx":                false,
		"text/json":                        false,
		"":                                 false,
	} {
		if got := IsJSON(ct); got != want {
			t.Errorf("IsJSON(%q) = %v, want %v", ct, got, want)
		}
	}
}

func TestError(t *testing.T) {
	w := httptest.NewRecorder()
	Error(w, 415, codec.CodeInvalidRequest, "nope")
	if w.Code != 415 || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("%d %v", w.Code, w.Header())
	}
	if got, want := w.Body.String(), `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"nope"}}`; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
}

func TestStatusOf(t *testing.T) {
	for _, tc := range []struct {
		msg         string
		status, ret int
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{"code":-32011}}`, 200, -1},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"m"}}`, 200, -1},
		{`{"jsonrpc":"2.0","id":"a","error":{"code":-32009,"message":"m"}}`, 401, -1},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32010,"message":"m"}}`, 403, -1},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32011,"message":"m","data":{"retryAfterMs":1001}}}`, 429, 2},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32011,"message":"m"}}`, 429, -1},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"m","data":{"retryAfterMs":0}}}`, 503, 0},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"m"}}`, 200, -1},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32004,"message":"m"}}`, 503, -1},
		{`[{"jsonrpc":"2.0","id":1,"error":{"code":-32011,"message":"m"}}]`, 200, -1},
		// JSON-RPC 1.0 answers (codec.ToJSONRPC1) call for the same.
		{`{"id":1,"result":{"code":-32011},"error":null}`, 200, -1},
		{`{"id":1,"result":null,"error":{"code":-32601,"message":"m"}}`, 200, -1},
		{`{"id":"a","result":null,"error":{"code":-32010,"message":"m"}}`, 403, -1},
		{`{"id":1.5,"result":null,"error":{"code":-32011,"message":"m","data":{"retryAfterMs":1001}}}`, 429, 2},
		{`{"id":null,"result":null,"error":{"code":-32000,"message":"m","data":{"retryAfterMs":0}}}`, 503, 0},
	} {
		if st := StatusOf([]byte(tc.msg)); st.Code != tc.status || st.RetryAfter != tc.ret {
			t.Errorf("%s: %+v, want %d %d", tc.msg, st, tc.status, tc.ret)
		}
	}
}
