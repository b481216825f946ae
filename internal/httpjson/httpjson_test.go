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
