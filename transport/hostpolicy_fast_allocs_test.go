//go:build !race

package transport

import (
	"net"
	"testing"

	"github.com/valyala/fasthttp"
)

// TestFastHTTPHandler_hostPolicyAllocatesNothing: on fasthttp, the check
// reads Host and Origin in place: a request it allows costs no
// allocation, and one it refuses is refused.
func TestFastHTTPHandler_hostPolicyAllocatesNothing(t *testing.T) {
	h := NewFastHTTPHandler(nil, nil)
	var req fasthttp.Request
	req.Header.SetHost("127.0.0.1:8080")
	var rc fasthttp.RequestCtx
	rc.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}, nil)
	if n := testing.AllocsPerRun(100, func() {
		if msg := h.refusal(&rc); msg != "" {
			t.Fatal(msg)
		}
	}); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
	rc.Request.Header.Set("Origin", "null")
	if msg := h.refusal(&rc); msg != msgOriginNotAllowed {
		t.Errorf("Origin null: %q", msg)
	}
}
