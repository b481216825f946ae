package conn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
)

// ServeMessageSink serves a body as ServeBodySink does, given the message
// a Scanner with the connection's limits found in it: the same answer,
// or none, for every kind of message, pooled or inline, and the same
// refusal of a body over MaxFrameBytes.
func TestServeMessageSink_answersAsServeBodySink(t *testing.T) {
	lim := codec.Limits{MaxFrameBytes: 256}
	pooled, inline := pooledEchoRouter(), echoRouter()
	bodies := []string{
		`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":[1,2,{"b":"c"}]}}`,
		`{"jsonrpc":"2.0","id":"x","method":"missing","params":[]}`,
		`{"jsonrpc":"2.0","method":"echo","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"ech\u006f"}`,
		`{"jsonrpc":"2.0","id":3}`,
		`{"id":4,"method":"echo","params":[]}`,
		`{"jsonrpc":"2.0","id":5,"result":{}}`,
		`{"jsonrpc":"2.0","id":6,"method":"echo","params":["` + strings.Repeat("x", 300) + `"]}`,
	}
	for _, jsonrpc1 := range []bool{false, true} {
		for _, r := range []struct {
			name string
			opts conn.Options
		}{{"pooled", conn.Options{Router: pooled}}, {"inline", conn.Options{Router: inline}}} {
			r.opts.Limits, r.opts.JSONRPC1 = &lim, jsonrpc1
			s := conn.NewStream(nil, &r.opts)
			for _, body := range bodies {
				want := serveSink(t, body, func(b []byte, sink conn.BodySink) error {
					return s.ServeBodySink(context.Background(), b, sink)
				})
				got := serveSink(t, body, func(b []byte, sink conn.BodySink) error {
					sc := codec.NewScanner(&lim)
					sc.SetJSONRPC1(jsonrpc1)
					msgs, batch, err := sc.Scan(b)
					if err != nil || batch || len(msgs) != 1 {
						t.Fatalf("%s: scanned %d messages (batch %v): %v", body, len(msgs), batch, err)
					}
					return s.ServeMessageSink(context.Background(), b, &msgs[0], sink)
				})
				if got != want {
					t.Errorf("%s (jsonrpc1 %v) %s: ServeMessageSink answered %q, ServeBodySink %q", r.name, jsonrpc1, body, got, want)
				}
			}
			s.Close()
		}
	}
}

// serveSink serves body through serve and returns the answer ("" for
// none).
func serveSink(t *testing.T, body string, serve func([]byte, conn.BodySink) error) string {
	t.Helper()
	var answer string
	if err := serve([]byte(body), conn.BodySink{Answer: func(msg []byte) { answer = string(msg) }}); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return answer
}
