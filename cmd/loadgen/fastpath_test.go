package main

import (
	"testing"

	"github.com/mcpwire/mcpwire/codec"
)

// TestFastResult: the fast path takes only the plainest result answers
// and agrees with the Scanner on each one it takes.
func TestFastResult(t *testing.T) {
	for _, c := range []struct {
		msg string
		id  uint64
		ok  bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"a":[1,"x"]}}`, 7, true},
		{`{"jsonrpc":"2.0","id":18446744073709551615,"result":1}`, 0, false}, // 20 digits: too long for it
		{`{"jsonrpc":"2.0","id":12,"result":"ok"}`, 12, true},
		{`{"jsonrpc":"2.0","id":07,"result":1}`, 0, false},
		{`{"jsonrpc":"2.0","id":"7","result":1}`, 0, false},
		{`{"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"x"}}`, 0, false},
		{`{"jsonrpc":"2.0","id":7, "result":1}`, 0, false},
		{`{"jsonrpc":"2.0","id":7,"result":}`, 0, false},
		{`{"jsonrpc":"2.0","id":7,"result":"unterminated}`, 0, false},
		{`{"jsonrpc":"2.0","id":7,"result":1,"error":{}}`, 0, false},
		{`{"jsonrpc":"2.0","id":7,"result":tru}`, 0, false},
	} {
		var passed []byte
		id, result, ok := fastResult([]byte(c.msg), &passed)
		if ok != c.ok || id != c.id {
			t.Errorf("%s: id %d ok %v; want %d %v", c.msg, id, ok, c.id, c.ok)
		}
		if ok {
			msgs, _, err := codec.NewScanner(nil).Scan([]byte(c.msg))
			if err != nil || msgs[0].Kind != codec.KindResult || string(msgs[0].Result) != string(result) {
				t.Errorf("%s: the Scanner disagrees: %v %v", c.msg, msgs, err)
			}
			if string(passed) != string(result) {
				t.Errorf("%s: passed holds %s", c.msg, passed)
			}
		}
	}
	// A result equal to one that passed is not checked again; any other is.
	passed := []byte(`{"a":1}`)
	if _, _, ok := fastResult([]byte(`{"jsonrpc":"2.0","id":7,"result":{"a":1}}`), &passed); !ok {
		t.Error("a result equal to one that passed: not taken")
	}
	if _, _, ok := fastResult([]byte(`{"jsonrpc":"2.0","id":7,"result":{"a":"x}}`), &passed); ok || string(passed) != `{"a":1}` {
		t.Errorf("a result unlike the one that passed: taken unchecked, or kept (%s)", passed)
	}
}
