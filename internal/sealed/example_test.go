package sealed_test

import (
	"errors"
	"fmt"

	"github.com/mcpwire/mcpwire/internal/sealed"
)

// A server seals the state of a request it must suspend into the
// requestState it returns, bound to that request, and opens it when the
// client retries.
func Example() {
	ring, err := sealed.New(nil) // a random key; give Options.Keys to share them
	if err != nil {
		panic(err)
	}
	call := sealed.Bind([]byte("tools/call"), []byte(`{"name":"deploy"}`), []byte("alice"))
	token, err := ring.Seal([]byte(`{"step":2}`), call)
	if err != nil {
		panic(err)
	}

	state, err := ring.Open(token, call)
	fmt.Printf("retry: %s %v\n", state, err)

	_, err = ring.Open(token, sealed.Bind([]byte("tools/call"), []byte(`{"name":"destroy"}`), []byte("alice")))
	fmt.Println("another call:", errors.Is(err, sealed.ErrWrongBinding))

	_, err = ring.Open(token+"-TAMPERED", call)
	e := sealed.RPCError(err)
	fmt.Println("altered:", int(e.Code), e.Message)
	// Output:
	// retry: {"step":2} <nil>
	// another call: true
	// altered: -32602 Invalid params: requestState failed its integrity check; send the request again without requestState and inputResponses
}
