package transport_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/mcpwire/mcpwire/transport"
)

func TestHeaderFromContext(t *testing.T) {
	if h := transport.HeaderFromContext(context.Background()); h != nil {
		t.Fatalf("no header put: got %v", h)
	}
	h := http.Header{"Authorization": {"Bearer x"}}
	ctx := transport.WithHeader(context.Background(), h)
	if got := transport.HeaderFromContext(ctx).Get("Authorization"); got != "Bearer x" {
		t.Fatalf("got %q", got)
	}
}
