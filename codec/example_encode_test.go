package codec_test

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcpwire/mcpwire/codec"
)

func ExampleAppendResult() {
	var pool codec.BufferPool
	buf := pool.Get()
	defer pool.Put(buf)

	// The id is echoed exactly as the request spelled it.
	buf.B = codec.AppendResult(buf.B, []byte(`1.50`), []byte(`{"tools":[]}`))
	fmt.Println(string(buf.B))
	// Output: {"jsonrpc":"2.0","id":1.50,"result":{"tools":[]}}
}

func ExampleAppendResultValue() {
	type weather struct {
		City string  `json:"city"`
		Temp float64 `json:"temp"`
	}
	out, err := codec.AppendResultValue(nil, []byte(`"w-1"`), &weather{City: "Paris", Temp: 18.5})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))
	// Output: {"jsonrpc":"2.0","id":"w-1","result":{"city":"Paris","temp":18.5}}
}

func ExampleAppendError() {
	e := codec.ErrInvalidParams.WithData(codec.Raw(`{"field":"city"}`))
	fmt.Println(string(codec.AppendError(nil, []byte(`7`), e)))
	fmt.Println(string(codec.AppendError(nil, nil, codec.ErrParse)))
	// Output:
	// {"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":{"field":"city"}}}
	// {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}
}

func ExampleAppendRequest() {
	fmt.Println(string(codec.AppendRequest(nil, []byte(`1`), "tools/call", []byte(`{"name":"echo"}`))))
	fmt.Println(string(codec.AppendRequest(nil, nil, "notifications/initialized", nil)))
	// Output:
	// {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}
	// {"jsonrpc":"2.0","method":"notifications/initialized"}
}

func ExampleAppendFrame() {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	fmt.Printf("%q\n", codec.AppendFrame(nil, codec.Newline, msg))
	fmt.Printf("%q\n", codec.AppendFrame(nil, codec.Header, msg))
	// Output:
	// "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"
	// "Content-Length: 36\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"
}

func ExampleNewFramer() {
	stream := "{\"id\":1}\r\n\n" + strings.Repeat("x", 100) + "\n{\"id\":2}"
	fr := codec.NewFramer(strings.NewReader(stream), codec.Newline, &codec.Limits{MaxFrameBytes: 64})
	for {
		frame, err := fr.Next()
		if err == io.EOF {
			break
		}
		var fe *codec.FrameError
		if errors.As(err, &fe) { // recoverable: the bad frame is skipped
			fmt.Println("skipped:", fe, "→ answer", int(fe.RPCError().Code))
			continue
		}
		if err != nil {
			panic(err)
		}
		fmt.Println("frame:", string(frame))
	}
	// Output:
	// frame: {"id":1}
	// skipped: frame: frame too large at stream offset 11 → answer -32600
	// frame: {"id":2}
}
