//go:build !race

package transport_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpwire/mcpwire/transport"
)

// TestHostPolicy_allocatesNothing: the check in front of every request
// allocates nothing when it allows one, browser's (Origin) or not.
func TestHostPolicy_allocatesNothing(t *testing.T) {
	var p transport.HostPolicy
	for _, tc := range []struct {
		host, origin string
		local        net.Addr
	}{
		{"127.0.0.1:8080", "", loopback4},
		{"127.0.0.1:8080", "http://localhost:5173", loopback4},
		{"127.0.0.1:8080", "http://127.0.0.1:8080", loopback4},
		// A server on another address, reached by its name: the name
		// is no IP address (though it starts with a hex digit), and asking
		// netip would allocate its error.
		{"api.example.com", "", lan},
		{"api.example.com", "https://api.example.com", lan},
	} {
		r := httptest.NewRequest(http.MethodPost, "/rpc", nil)
		r.Host = tc.host
		if tc.origin != "" {
			r.Header.Set("Origin", tc.origin)
		}
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, tc.local))
		w := httptest.NewRecorder()
		if n := testing.AllocsPerRun(100, func() {
			if !p.Allow(w, r) {
				t.Fatal("refused")
			}
		}); n != 0 {
			t.Errorf("host %q origin %q: %v allocations, want 0", tc.host, tc.origin, n)
		}
	}
}

func BenchmarkHostPolicy(b *testing.B) {
	var p transport.HostPolicy
	r := httptest.NewRequest(http.MethodPost, "/rpc", nil)
	r.Host = "127.0.0.1:8080"
	r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, loopback4))
	w := httptest.NewRecorder()
	b.Run("origin=none", func(b *testing.B) {
		for b.Loop() {
			p.Allow(w, r)
		}
	})
	r.Header.Set("Origin", "http://localhost:5173")
	b.Run("origin=loopback", func(b *testing.B) {
		for b.Loop() {
			p.Allow(w, r)
		}
	})
}
