package demoserver

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/transport"
)

// The HTTP side of -auth-token, -forbid and -rate, as issue 8's contract
// puts it: over JSON-RPC on HTTP POST (/rpc) a single answer -32009 is 401
// with WWW-Authenticate: Bearer, -32010 is 403, -32011 is 429 with
// Retry-After (whole seconds, rounded up); a batch is always 200. A
// WebSocket (/ws) carries the token in its upgrade's header: without it
// the upgrade is refused with 401; inside, the codes come as messages.

// httpAnswer is one POST's outcome.
type httpAnswer struct {
	status int
	header http.Header
	raw    []byte
	msg    answer
}

// post sends body to url with auth as its Authorization header ("":
// none), each on a connection of its own (the peer of the rate limit is
// the IP address, not the connection).
func post(t *testing.T, url, auth, body string) *httpAnswer {
	t.Helper()
	req, err := http.NewRequestWithContext(testCtx(t), "POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	a := &httpAnswer{status: resp.StatusCode, header: resp.Header}
	if a.raw, err = io.ReadAll(resp.Body); err != nil {
		t.Fatal(err)
	}
	a.msg.raw = a.raw
	if len(a.raw) > 0 && a.raw[0] == '{' {
		if err := json.Unmarshal(a.raw, &a.msg.msg); err != nil {
			t.Fatalf("body %q: %v", a.raw, err)
		}
	}
	return a
}

func TestDemoserver_authTokenOverHTTPPost(t *testing.T) {
	rpc := startHTTP(t, "-auth-token", demoToken, "-forbid", "sum") + "/rpc"
	bearer := "Bearer " + demoToken
	for _, tc := range []struct {
		name, auth, id, method string
		status, code           int
	}{
		{"no token", "", "1", "subtract", 401, -32009},
		{"wrong token", "Bearer nope", "2", "subtract", 401, -32009},
		{"another scheme", "Basic " + demoToken, `"three"`, "subtract", 401, -32009},
		{"the token", bearer, "4", "subtract", 200, 0},
		{"a forbidden method", bearer, "5", "sum", 403, -32010},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := post(t, rpc, tc.auth, request(tc.id, tc.method, "[42,23]"))
			if a.status != tc.status || a.msg.code() != tc.code {
				t.Fatalf("%d %s, want %d and code %d", a.status, a.raw, tc.status, tc.code)
			}
			if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q", ct)
			}
			switch tc.status {
			case 401:
				if w := a.header.Get("WWW-Authenticate"); !strings.HasPrefix(w, "Bearer") {
					t.Errorf("WWW-Authenticate %q", w)
				}
			case 403:
				if string(a.msg.msg.Error.Data) != `{"method":"sum"}` {
					t.Errorf("data %s", a.msg.msg.Error.Data)
				}
			case 200:
				if string(a.msg.msg.Result) != "19" {
					t.Errorf("result %s", a.msg.msg.Result)
				}
			}
			// The answer carries the request's id: the JSON-RPC handler
			// answered it (only its status was mapped).
			if string(a.msg.msg.ID) != tc.id {
				t.Errorf("id %s, want %s", a.msg.msg.ID, tc.id)
			}
		})
	}
	// A batch is always 200, whatever its elements' codes.
	a := post(t, rpc, "", "["+request("6", "subtract", "[42,23]")+","+request("7", "sum", "[1]")+"]")
	var batch []json.RawMessage
	if a.status != 200 || json.Unmarshal(a.raw, &batch) != nil || len(batch) != 2 {
		t.Errorf("batch without the token: %d %s", a.status, a.raw)
	}
}

func TestDemoserver_rateLimitOverHTTPPost(t *testing.T) {
	rpc := startHTTP(t, "-rate", "1") + "/rpc"
	if a := post(t, rpc, "", request("1", "echo", "[1]")); a.status != 200 || a.msg.code() != 0 {
		t.Fatalf("first call: %d %s", a.status, a.raw)
	}
	// A new connection from the same IP address: the same peer.
	a := post(t, rpc, "", request("2", "echo", "[2]"))
	if a.status != http.StatusTooManyRequests || a.msg.code() != -32011 {
		t.Fatalf("second call: %d %s", a.status, a.raw)
	}
	ms := a.msg.retryAfterMs(t)
	if ms <= 0 || ms > 1000 {
		t.Errorf("retryAfterMs %d", ms)
	}
	if ra := a.header.Get("Retry-After"); ra != "1" { // ⌈ms/1000⌉
		t.Errorf("Retry-After %q, want 1", ra)
	}
}

// dialWS opens a WebSocket to url with auth as the upgrade's
// Authorization header ("": none).
func dialWS(t *testing.T, url, auth string) (conn.Stream, error) {
	t.Helper()
	h := http.Header{}
	if auth != "" {
		h.Set("Authorization", auth)
	}
	return transport.DialWebSocket(testCtx(t), url, &transport.WebSocketOptions{Header: h})
}

// wsRoundTrip sends msg on s and decodes the next message.
func wsRoundTrip(t *testing.T, s conn.Stream, msg string) *answer {
	t.Helper()
	if err := s.Write(s.AppendFrame(nil, []byte(msg))); err != nil {
		t.Fatal(err)
	}
	raw, err := s.Next()
	if err != nil {
		t.Fatal(err)
	}
	a := &answer{raw: append([]byte(nil), raw...)}
	if err := json.Unmarshal(a.raw, &a.msg); err != nil {
		t.Fatalf("not JSON: %q", a.raw)
	}
	return a
}

func TestDemoserver_authTokenOverWebSocket(t *testing.T) {
	base := startHTTP(t, "-auth-token", demoToken, "-forbid", "sum")
	ws := "ws" + strings.TrimPrefix(base, "http") + "/ws"

	// The upgrade without the token, or with a wrong one: 401.
	for _, auth := range []string{"", "Bearer nope"} {
		req, err := http.NewRequestWithContext(testCtx(t), "GET", base+"/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Connection", "Upgrade")
		req.Header.Set("Upgrade", "websocket")
		req.Header.Set("Sec-WebSocket-Version", "13")
		req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("upgrade with %q: %d, WWW-Authenticate %q", auth, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}
	if s, err := dialWS(t, ws, ""); err == nil {
		s.Close()
		t.Error("a WebSocket without the token")
	}

	s, err := dialWS(t, ws, "Bearer "+demoToken)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if a := wsRoundTrip(t, s, request("1", "subtract", "[42,23]")); a.code() != 0 || string(a.msg.Result) != "19" {
		t.Errorf("subtract: %s", a.raw)
	}
	if a := wsRoundTrip(t, s, request("2", "sum", "[1,2]")); a.code() != -32010 || string(a.msg.Error.Data) != `{"method":"sum"}` {
		t.Errorf("sum under -forbid: %s", a.raw)
	}
}

func TestDemoserver_rateLimitOverWebSocket(t *testing.T) {
	ws := "ws" + strings.TrimPrefix(startHTTP(t, "-rate", "1"), "http") + "/ws"
	s, err := dialWS(t, ws, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if a := wsRoundTrip(t, s, request("1", "echo", "[1]")); a.code() != 0 {
		t.Fatalf("first call: %s", a.raw)
	}
	a := wsRoundTrip(t, s, request("2", "echo", "[2]"))
	if a.code() != -32011 {
		t.Fatalf("second call: %s", a.raw)
	}
	if ms := a.retryAfterMs(t); ms <= 0 || ms > 1000 {
		t.Errorf("retryAfterMs %d", ms)
	}
	// A WebSocket's peer is its session: another one has its own budget.
	other, err := dialWS(t, ws, "")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if a := wsRoundTrip(t, other, request("1", "echo", "[1]")); a.code() != 0 {
		t.Errorf("another WebSocket was limited: %s", a.raw)
	}
}
