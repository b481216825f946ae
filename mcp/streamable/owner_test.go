package streamable

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpwire/mcpwire/internal/principal"
)

// The key a new session is counted under: the principal when there is
// one, else the peer's address, IPv6 by its /64.
func TestSessionOwner_keysByPrincipalElsePeer(t *testing.T) {
	type who struct{ org, user string }
	req := func(addr string, p any) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.RemoteAddr = addr
		if p != nil {
			r = r.WithContext(principal.With(context.Background(), p))
		}
		return r
	}
	for _, tc := range []struct {
		name string
		a, b *http.Request
		same bool
	}{
		{"one IPv4 address, two ports", req("192.0.2.1:1000", nil), req("192.0.2.1:2000", nil), true},
		{"two IPv4 addresses", req("192.0.2.1:1000", nil), req("192.0.2.2:1000", nil), false},
		{"IPv4 and the same mapped in IPv6", req("192.0.2.1:1000", nil), req("[::ffff:192.0.2.1]:1000", nil), true},
		{"one IPv6 /64", req("[2001:db8:1:2::1]:1000", nil), req("[2001:db8:1:2:ffff::9]:1000", nil), true},
		{"two IPv6 /64s", req("[2001:db8:1:2::1]:1000", nil), req("[2001:db8:1:3::1]:1000", nil), false},
		{"link-local IPv6 hosts are each their own", req("[fe80::1%eth0]:1000", nil), req("[fe80::2%eth0]:1000", nil), false},
		{"one link-local IPv6 host", req("[fe80::1%eth0]:1000", nil), req("[fe80::1%eth0]:2000", nil), true},
		{"one principal, two addresses", req("192.0.2.1:1000", "alice"), req("192.0.2.2:1000", "alice"), true},
		{"two principals, one address", req("192.0.2.1:1000", "alice"), req("192.0.2.1:1000", "bob"), false},
		{"a principal named as an address is not that address", req("192.0.2.1:1000", "192.0.2.1"), req("192.0.2.1:1000", nil), false},
		{"a principal by value", req("192.0.2.1:1000", who{"a", "x"}), req("192.0.2.2:1000", who{"a", "x"}), true},
		{"principals by value differ", req("192.0.2.1:1000", who{"a", "x"}), req("192.0.2.1:1000", who{"a", "y"}), false},
		{"a principal that is not comparable", req("192.0.2.1:1000", map[string]string{"sub": "x"}), req("192.0.2.2:1000", map[string]string{"sub": "x"}), true},
		{"an address that is none", req("@", nil), req("@", nil), true},
	} {
		if got := sessionOwner(tc.a) == sessionOwner(tc.b); got != tc.same {
			t.Errorf("%s: %v and %v: same %v, want %v", tc.name, sessionOwner(tc.a), sessionOwner(tc.b), got, tc.same)
		}
	}
}
