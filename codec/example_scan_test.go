package codec_test

import (
	"errors"
	"fmt"

	"github.com/mcpwire/mcpwire/codec"
)

func ExampleScanner_Scan() {
	s := codec.NewScanner(nil)
	msgs, batch, err := s.Scan([]byte(`{"jsonrpc":"2.0","id":1.50,"method":"tools/call","params":{"name":"echo"}}`))
	if err != nil {
		panic(err)
	}
	m := msgs[0]
	fmt.Println(batch, m.Kind, string(m.ID), string(m.AppendMethod(nil)), string(m.Params))
	// Output: false request 1.50 tools/call {"name":"echo"}
}

func ExampleScanner_Scan_batch() {
	s := codec.NewScanner(nil)
	msgs, batch, _ := s.Scan([]byte(`[
		{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
		{"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
		{"foo": "boo"},
		{"jsonrpc": "2.0", "method": 1, "id": 5}
	]`))
	fmt.Println("batch:", batch)
	for _, m := range msgs {
		id := "null"
		if m.ID != nil {
			id = string(m.ID)
		}
		if m.Kind == codec.KindInvalid {
			fmt.Println(m.Kind, id, int(m.Err.Code))
			continue
		}
		fmt.Println(m.Kind, id, string(m.Method))
	}
	// Output:
	// batch: true
	// request "1" sum
	// notification null notify_hello
	// invalid null -32600
	// invalid 5 -32600
}

func ExampleScanner_Scan_parseError() {
	s := codec.NewScanner(nil)
	_, _, err := s.Scan([]byte("{\"jsonrpc\":\"2.0\",\"method\":\"caf\xe9\"}"))
	var se *codec.SyntaxError
	fmt.Println(errors.As(err, &se), errors.Is(err, codec.ErrInvalidUTF8), se.Offset)
	// Output: true true 30
}

func ExampleAppendUnescaped() {
	// The lone surrogate \ud800 becomes U+FFFD, the replacement character.
	fmt.Println(string(codec.AppendUnescaped(nil, []byte(`caf\u00e9 \ud83d\ude00 \u4e2d\u6587 \"lone\": \ud800`))))
	// Output: café 😀 中文 "lone": �
}
