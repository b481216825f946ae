package middleware_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

// session is a connection served through ServeBody, as an HTTP or
// WebSocket transport serves one: its peer and header are what the test
// says.
type session struct {
	t *testing.T
	c *conn.Conn
}

// newSession serves r's methods, wrapped in mw, on a session bound with
// peer; header, if not nil, is in every handler's context.
func newSession(t *testing.T, peer conn.Peer, header http.Header, mw ...router.Middleware) *session {
	t.Helper()
	r := router.New()
	r.Use(mw...)
	for _, m := range []string{"echo", "admin"} {
		if err := r.Register(m, router.HandlerFunc(echo), nil); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	if header != nil {
		ctx = transport.WithHeader(ctx, header)
	}
	c := conn.NewStream(nil, &conn.Options{Router: r, Peer: peer, Context: ctx})
	t.Cleanup(func() { c.Close() })
	return &session{t: t, c: c}
}

// echo answers its params verbatim, or true when there are none.
func echo(_ context.Context, req *router.Request) (any, error) {
	if req.Params == nil {
		return true, nil
	}
	return json.RawMessage(append([]byte(nil), req.Params...)), nil
}

// call sends body and returns the answer ("" for none).
func (s *session) call(body string) string {
	s.t.Helper()
	var got string
	if err := s.c.ServeBody(context.Background(), []byte(body), func(msg []byte) { got = string(msg) }); err != nil {
		s.t.Fatal(err)
	}
	return got
}

// response is an answer, decoded.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func decode(t *testing.T, msg string) response {
	t.Helper()
	var r response
	if err := json.Unmarshal([]byte(msg), &r); err != nil {
		t.Fatalf("answer %q: %v", msg, err)
	}
	return r
}

// code is the answer's error code, 0 for a result.
func (r response) code() int {
	if r.Error == nil {
		return 0
	}
	return r.Error.Code
}
