package transport_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/transport"
)

var (
	loopback4 = net.TCPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:8080"))
	loopback6 = net.TCPAddrFromAddrPort(netip.MustParseAddrPort("[::1]:8080"))
	lan       = net.TCPAddrFromAddrPort(netip.MustParseAddrPort("192.168.1.5:8080"))
)

func TestHostPolicy_Check(t *testing.T) {
	listed := transport.HostPolicy{
		AllowedHosts:   []string{"mcp.example.com", "api.example.com:8443"},
		AllowedOrigins: []string{"https://app.example.com"},
	}
	for _, tc := range []struct {
		name         string
		p            transport.HostPolicy
		host, origin string
		local        net.Addr
		want         string // "" allowed, else the refusal's message
	}{
		{"loopback host", transport.HostPolicy{}, "127.0.0.1:8080", "", loopback4, ""},
		{"localhost any case", transport.HostPolicy{}, "LocalHost:8080", "", loopback4, ""},
		{"ipv6 loopback", transport.HostPolicy{}, "[::1]:8080", "", loopback6, ""},
		{"other loopback address", transport.HostPolicy{}, "127.0.0.2", "", loopback4, ""},
		{"rebinding host", transport.HostPolicy{}, "evil.example:8080", "", loopback4, "host"},
		{"rebinding host and its own origin", transport.HostPolicy{}, "evil.example:8080", "http://evil.example:8080", loopback4, "host"},
		{"rebinding host on ipv6", transport.HostPolicy{}, "evil.example", "", loopback6, "host"},
		{"no host on loopback", transport.HostPolicy{}, "", "", loopback4, "host"},
		// Found by FuzzHostPolicy: after the brackets, a port with colons
		// (net.SplitHostPort: too many colons) leaves no host.
		{"bracketed loopback, port with colons", transport.HostPolicy{}, "[127.0.0.1]::", "", loopback6, "host"},
		// Found by FuzzHostPolicy in CI: an empty entry of AllowedHosts
		// matched the empty name of a Host that has none.
		{"empty listed host, host without a name", transport.HostPolicy{AllowedHosts: []string{""}}, "[", "", loopback4, "host"},
		{"bracket in the port", transport.HostPolicy{}, "localhost:[", "", loopback4, "host"},
		{"unknown local address", transport.HostPolicy{}, "evil.example", "", nil, ""},
		{"foreign origin", transport.HostPolicy{}, "localhost:8080", "https://evil.example", loopback4, "origin"},
		{"null origin", transport.HostPolicy{}, "localhost:8080", "null", loopback4, "origin"},
		{"file origin", transport.HostPolicy{}, "localhost:8080", "file://", loopback4, "origin"},
		{"origin with a path", transport.HostPolicy{}, "localhost:8080", "http://localhost:8080/x", loopback4, "origin"},
		{"own origin", transport.HostPolicy{}, "localhost:8080", "http://localhost:8080", loopback4, ""},
		{"loopback origin", transport.HostPolicy{}, "localhost:8080", "http://127.0.0.1:5173", loopback4, ""},
		{"loopback origin off loopback", transport.HostPolicy{}, "mcp.example.com", "http://localhost:5173", lan, "origin"},
		{"lan: any host", transport.HostPolicy{}, "evil.example", "", lan, ""},
		{"lan: foreign origin", transport.HostPolicy{}, "mcp.example.com", "https://evil.example", lan, "origin"},
		{"lan: own origin", transport.HostPolicy{}, "mcp.example.com", "https://mcp.example.com", lan, ""},
		{"listed host", listed, "MCP.example.com:9000", "", loopback4, ""},
		{"listed host:port", listed, "api.example.com:8443", "", loopback4, ""},
		{"listed host, other port", listed, "api.example.com:8444", "", loopback4, "host"},
		{"list set: lan checks host", listed, "evil.example", "", lan, "host"},
		{"listed origin", listed, "mcp.example.com", "https://APP.example.com", lan, ""},
		{"unlisted origin", listed, "mcp.example.com", "https://app.example.com.evil", lan, "origin"},
		{"any host", transport.HostPolicy{AllowedHosts: []string{"*"}}, "evil.example", "", loopback4, ""},
		{"any origin", transport.HostPolicy{AllowedOrigins: []string{"*"}}, "localhost", "null", loopback4, ""},
		{"disabled", transport.HostPolicy{Disabled: true}, "evil.example", "null", loopback4, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Check(tc.host, tc.origin, tc.local)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Check(%q, %q) = %v, want allowed", tc.host, tc.origin, err)
				}
				return
			}
			var e *codec.Error
			if !errors.As(err, &e) || e.Code != codec.CodeForbidden || !strings.Contains(e.Message, tc.want+" not allowed") {
				t.Fatalf("Check(%q, %q) = %v, want -32010 naming the %s", tc.host, tc.origin, err, tc.want)
			}
		})
	}
}

// TestHostPolicy_Allow: net/http requests are judged on the local address
// their server records, and refusals are answered 403 with -32010.
func TestHostPolicy_Allow(t *testing.T) {
	var p transport.HostPolicy
	for _, tc := range []struct {
		host, origin string
		local        net.Addr
		want         int
	}{
		{"localhost:1", "", loopback4, 200},
		{"evil.example:1", "", loopback4, 403},
		{"evil.example:1", "", lan, 200},
		{"localhost:1", "null", loopback4, 403},
	} {
		r := httptest.NewRequest(http.MethodPost, "/rpc", nil)
		r.Host = tc.host
		if tc.origin != "" {
			r.Header.Set("Origin", tc.origin)
		}
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, tc.local))
		w := httptest.NewRecorder()
		if p.Allow(w, r) {
			w.WriteHeader(200)
		}
		if w.Code != tc.want {
			t.Errorf("host %q origin %q on %v: status %d, want %d", tc.host, tc.origin, tc.local, w.Code, tc.want)
		}
		if tc.want == 403 && !strings.Contains(w.Body.String(), `"code":-32010`) {
			t.Errorf("refusal body %s", w.Body)
		}
	}
}
