package conn_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
)

// lockedBuffer is a bytes.Buffer safe for a logger and a test to share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A handler's panic is answered -32603 and logged with its method and
// stack by a logger that keeps errors (one that keeps nothing is not
// given the stack, which costs its capture).
func TestConn_panicIsLoggedWithItsStack(t *testing.T) {
	r := router.New()
	if err := r.Register("boom", router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		panic("kaboom")
	}), &router.MethodOptions{Inline: true}); err != nil {
		t.Fatal(err)
	}
	var logged lockedBuffer
	_, p := serve(t, r, &conn.Options{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"boom"}`)
	if m := p.recvObj(); m["error"].(map[string]any)["code"] != float64(-32603) {
		t.Fatalf("answer %v, want -32603", m)
	}
	out := logged.String()
	for _, want := range []string{"handler panic", "method=boom", "panic=kaboom", "stack=", "panic_log_test.go"} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %q:\n%s", want, out)
		}
	}
}
