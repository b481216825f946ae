package transport_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/transport"
)

// TestHostPolicy_endpoints: the JSON-RPC POST handlers (net/http and
// fasthttp) and the WebSocket upgrade apply the same policy, before
// anything else: a rebinding Host, a foreign Origin and "null" are refused
// 403 with -32010; loopback, own and listed ones are served.
func TestHostPolicy_endpoints(t *testing.T) {
	opts := &conn.Options{Router: rpcRouter(nil)}
	policy := transport.HostPolicy{AllowedOrigins: []string{"https://app.example.com"}}
	s := startRPC(t, opts, &transport.HTTPOptions{HostPolicy: policy}, &transport.WebSocketOptions{HostPolicy: policy})
	off := startRPC(t, opts, &transport.HTTPOptions{HostPolicy: transport.HostPolicy{Disabled: true}},
		&transport.WebSocketOptions{HostPolicy: transport.HostPolicy{Disabled: true}})
	fast := serveFastHTTPWith(t, opts, &transport.HTTPOptions{HostPolicy: policy})
	fastOff := serveFastHTTPWith(t, opts, &transport.HTTPOptions{HostPolicy: transport.HostPolicy{Disabled: true}})

	type endpoint struct {
		name, url, offURL string
		ok                int // the status of an allowed request
	}
	endpoints := []endpoint{
		{"rpc", s.URL + "/rpc", off.URL + "/rpc", http.StatusOK},
		{"fasthttp", fast, fastOff, http.StatusOK},
		{"ws", s.URL + "/ws", off.URL + "/ws", http.StatusSwitchingProtocols},
	}
	for _, tc := range []struct {
		name         string
		host, origin string // host "" keeps the URL's; "PORT" stands for its port
		refused      string // "" allowed, "host" or "origin"
	}{
		{"loopback", "", "", ""},
		{"localhost", "localhost:PORT", "", ""},
		{"rebinding host", "evil.example:PORT", "", "host"},
		{"rebinding host and origin", "evil.example:PORT", "http://evil.example:PORT", "host"},
		{"foreign origin", "", "https://evil.example", "origin"},
		{"null origin", "", "null", "origin"},
		{"own origin", "", "http://127.0.0.1:PORT", ""},
		{"loopback origin", "", "http://localhost:5173", ""},
		{"listed origin", "", "https://app.example.com", ""},
	} {
		for _, ep := range endpoints {
			t.Run(tc.name+"/"+ep.name, func(t *testing.T) {
				res, body := hostRequest(t, ep.url, tc.host, tc.origin)
				if tc.refused == "" {
					if res.StatusCode != ep.ok {
						t.Fatalf("status %d, want %d: %s", res.StatusCode, ep.ok, body)
					}
					return
				}
				if res.StatusCode != http.StatusForbidden || !strings.Contains(body, `"code":-32010`) || !strings.Contains(body, tc.refused+" not allowed") {
					t.Fatalf("status %d %s, want 403 -32010 naming the %s", res.StatusCode, body, tc.refused)
				}
				// Turned off, the same request is served.
				if res, body := hostRequest(t, ep.offURL, tc.host, tc.origin); res.StatusCode != ep.ok {
					t.Fatalf("policy off: status %d, want %d: %s", res.StatusCode, ep.ok, body)
				}
			})
		}
	}
}

// hostRequest sends to u, a POST of a call for /rpc or an upgrade for /ws,
// with Host host and Origin origin ("PORT" in them replaced with u's
// port).
func hostRequest(t *testing.T, u, host, origin string) (*http.Response, string) {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	host = strings.ReplaceAll(host, "PORT", pu.Port())
	origin = strings.ReplaceAll(origin, "PORT", pu.Port())
	var req *http.Request
	if strings.HasSuffix(u, "/ws") {
		req, err = http.NewRequest(http.MethodGet, u, nil)
		req.Header.Set("Connection", "Upgrade")
		req.Header.Set("Upgrade", "websocket")
		req.Header.Set("Sec-WebSocket-Version", "13")
		req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	} else {
		req, err = http.NewRequest(http.MethodPost, u, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`))
		req.Header.Set("Content-Type", "application/json")
	}
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if req.Method == http.MethodPost {
		return do(t, req)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close() // a WebSocket once upgraded: closed unread
	if res.StatusCode == http.StatusSwitchingProtocols {
		return res, ""
	}
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}
