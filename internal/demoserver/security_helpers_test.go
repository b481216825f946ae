package demoserver

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/rawhttp"
)

// The shared machinery of the HTTP security tables (security_test.go's
// hostile headers, security_reads_test.go's hostile framing): the demo
// server's HTTP endpoints as a list, the servers a row can ask for, the
// natural request of each endpoint, a request written byte for byte on a
// TCP connection of its own (package rawhttp), and the expectations a row
// states per endpoint. A row of security_test.go is {name, server, build,
// want}: build writes the request for one endpoint (nil: the endpoint
// does not apply), want maps an endpoint's name (or "*" for the others) to
// what its answer must be.

// Names of the demo server's HTTP endpoints.
const (
	epMCP     = "mcp"     // Streamable HTTP, POST/GET/DELETE /mcp
	epSSE     = "sse"     // the HTTP+SSE transport of 2024-11-05, /sse
	epRPC     = "rpc"     // JSON-RPC over HTTP POST on net/http, /rpc
	epWS      = "ws"      // WebSocket upgrade, /ws
	epFastRPC = "fastrpc" // JSON-RPC over HTTP POST on fasthttp (-fast-rpc)
)

// endpoints is every HTTP endpoint the tables run against.
var endpoints = []string{epMCP, epSSE, epRPC, epWS, epFastRPC}

// Servers a row can ask for: the arguments after -listen and -fast-rpc.
const (
	srvPlain    = "plain"     // the defaults: no token, no CORS
	srvAuthCORS = "auth+cors" // -auth-token and -cors
)

// corsOrigin is the origin -cors lists on srvAuthCORS.
const corsOrigin = "https://app.example.com"

var serverArgs = map[string][]string{
	srvPlain:    nil,
	srvAuthCORS: {"-auth-token", demoToken, "-cors", corsOrigin},
}

// securityServer is a demo server over HTTP with -fast-rpc.
type securityServer struct {
	http, fast string // host:port of the net/http server and of fasthttp's
}

// addr returns the host:port that serves endpoint ep.
func (s *securityServer) addr(ep string) string {
	if ep == epFastRPC {
		return s.fast
	}
	return s.http
}

// port returns the port that serves endpoint ep.
func (s *securityServer) port(ep string) string {
	_, p, _ := net.SplitHostPort(s.addr(ep))
	return p
}

// path returns endpoint ep's path.
func path(ep string) string {
	switch ep {
	case epMCP:
		return "/mcp"
	case epSSE:
		return "/sse"
	case epWS:
		return "/ws"
	}
	return "/rpc"
}

// httpServers are the values of -http-server the tables run against:
// every endpoint of the -listen address behind fasthttp's front door
// (front.go), and on net/http alone.
var httpServers = []string{httpServerFast, httpServerNet}

// securityServers starts the servers of a test on demand, one of each kind,
// stopped when the test ends.
type securityServers struct {
	t      *testing.T
	server string // -http-server
	mu     sync.Mutex
	m      map[string]*securityServer
}

func newSecurityServers(t *testing.T, server string) *securityServers {
	return &securityServers{t: t, server: server, m: map[string]*securityServer{}}
}

// securityArgs returns the demo server's arguments for HTTP on loopback
// with -http-server server and -fast-rpc, then extra.
func securityArgs(server string, extra ...string) []string {
	return append([]string{"-listen", "http://127.0.0.1:0", "-http-server", server, "-fast-rpc", "127.0.0.1:0"}, extra...)
}

// newSecurityServer returns the server whose net/http URL is url and whose
// fasthttp URL is fastRPC (as the demo server logs them: addr=…,
// fastrpc=…/rpc).
func newSecurityServer(url, fastRPC string) *securityServer {
	return &securityServer{
		http: strings.TrimPrefix(url, "http://"),
		fast: strings.TrimSuffix(strings.TrimPrefix(fastRPC, "http://"), "/rpc"),
	}
}

// get returns the server of kind, starting it the first time.
func (ss *securityServers) get(kind string) *securityServer {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if s := ss.m[kind]; s != nil {
		return s
	}
	t := ss.t
	_, found, logs := startLogging(t, build(t), []string{"addr", "fastrpc"}, securityArgs(ss.server, serverArgs[kind]...)...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("demoserver %s's stderr:\n%s", kind, logs)
		}
	})
	s := newSecurityServer(found["addr"], found["fastrpc"])
	ss.m[kind] = s
	return s
}

// rawRequest is an HTTP/1.1 request written as it is: header lines in
// order, Host among them as the row wants it (none if Host is "-").
type rawRequest struct {
	method, target string
	header         []string // name, value, name, value…
	body           string
}

// with returns a copy of r with header lines added (replacing those of
// the same name; a value "" removes the line).
func (r rawRequest) with(kv ...string) rawRequest {
	h := append([]string(nil), r.header...)
	for i := 0; i+1 < len(kv); i += 2 {
		out := h[:0:0]
		for j := 0; j+1 < len(h); j += 2 {
			if !strings.EqualFold(h[j], kv[i]) {
				out = append(out, h[j], h[j+1])
			}
		}
		if kv[i+1] != "" {
			out = append(out, kv[i], kv[i+1])
		}
		h = out
	}
	r.header = h
	return r
}

// head renders r's request line and header lines, each ending in CRLF,
// without the blank line that ends the header: rows that frame a body
// their own way go on from there.
func (r rawRequest) head() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\n", r.method, r.target)
	for i := 0; i+1 < len(r.header); i += 2 {
		fmt.Fprintf(&b, "%s: %s\r\n", r.header[i], r.header[i+1])
	}
	return b.String()
}

// bytes renders r, with Content-Length for its body.
func (r rawRequest) bytes() string {
	var b strings.Builder
	b.WriteString(r.head())
	if r.body != "" || r.method == http.MethodPost {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(r.body))
	}
	b.WriteString("Connection: close\r\n\r\n")
	b.WriteString(r.body)
	return b.String()
}

// sendRaw writes req to addr on a connection of its own and reads the
// answer's status and header, and its body unless it is a stream, within
// a generous deadline; a server that answers nothing fails the test.
func sendRaw(t *testing.T, addr string, req rawRequest) *rawhttp.Response {
	t.Helper()
	c := rawhttp.Send(t, addr, req.bytes(), 20*time.Second)
	defer c.Close() // ends a stream left unread
	c.SkipStreams = true
	a, err := c.ReadResponse()
	if a == nil {
		t.Fatalf("%s %s: no answer: %v", req.method, req.target, err)
	}
	return a
}

// expect judges an answer: "" when it is as wanted, else what is wrong.
type expect func(a *rawhttp.Response) string

// status wants the status code st, and a JSON-RPC error body with each of
// codes (its "code":N) for an error status.
func status(st int, codes ...int) expect {
	return func(a *rawhttp.Response) string {
		if a.Status != st {
			return fmt.Sprintf("status %d, want %d", a.Status, st)
		}
		for _, c := range codes {
			if !strings.Contains(a.Body, fmt.Sprintf(`"code":%d`, c)) {
				return fmt.Sprintf("body %q, want code %d", a.Body, c)
			}
		}
		return ""
	}
}

// forbidden wants 403 with -32010 and a message naming what (host or
// origin).
func forbidden(what string) expect {
	return func(a *rawhttp.Response) string {
		if msg := status(http.StatusForbidden, -32010)(a); msg != "" {
			return msg
		}
		if !strings.Contains(a.Body, what+" not allowed") {
			return fmt.Sprintf("body %q does not name the %s", a.Body, what)
		}
		return ""
	}
}

// clientError wants a 4xx status: refused, whatever the reason.
func clientError(a *rawhttp.Response) string {
	if a.Status < 400 || a.Status > 499 {
		return fmt.Sprintf("status %d, want a refusal (4xx)", a.Status)
	}
	return ""
}

// and wants every expectation of es.
func and(es ...expect) expect {
	return func(a *rawhttp.Response) string {
		for _, e := range es {
			if msg := e(a); msg != "" {
				return msg
			}
		}
		return ""
	}
}

// header wants header name to contain each of values (case-insensitive;
// "" for absent).
func header(name string, values ...string) expect {
	return func(a *rawhttp.Response) string {
		got := strings.Join(a.Header.Values(name), ", ")
		for _, v := range values {
			if v == "" && got != "" || !strings.Contains(strings.ToLower(got), strings.ToLower(v)) {
				return fmt.Sprintf("%s: %q, want %q", name, got, v)
			}
		}
		return ""
	}
}

// securityRow is one hostile request, run against every endpoint.
type securityRow struct {
	name   string
	server string // srvPlain or srvAuthCORS ("": srvPlain)
	// build returns the request for endpoint ep of s (ok false: the row
	// does not apply to ep). It may talk to s first (open a session).
	build func(t *testing.T, s *securityServer, ep string) (req rawRequest, ok bool)
	// want maps an endpoint to its expectation; "*" stands for the
	// endpoints not named.
	want map[string]expect
}

// runSecurityRows runs every row against every endpoint, each as a subtest
// row/endpoint.
func runSecurityRows(t *testing.T, rows []securityRow) {
	for _, server := range httpServers {
		t.Run("http-server="+server, func(t *testing.T) { runSecurityRowsOn(t, server, rows) })
	}
}

// runSecurityRowsOn runs rows against servers with -http-server server.
func runSecurityRowsOn(t *testing.T, server string, rows []securityRow) {
	ss := newSecurityServers(t, server)
	for _, row := range rows {
		for _, ep := range endpoints {
			want := row.want[ep]
			if want == nil {
				want = row.want["*"]
			}
			if want == nil {
				continue
			}
			t.Run(row.name+"/"+ep, func(t *testing.T) {
				kind := row.server
				if kind == "" {
					kind = srvPlain
				}
				s := ss.get(kind)
				req, ok := row.build(t, s, ep)
				if !ok {
					t.Skipf("%s does not apply to %s", row.name, ep)
				}
				if msg := want(sendRaw(t, s.addr(ep), req)); msg != "" {
					t.Errorf("%s %s: %s", req.method, req.target, msg)
				}
			})
		}
	}
}

// Bodies of the natural requests.
const (
	secInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}`
	secCall = `{"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}`
)

// natural returns the request a well-behaved client sends to endpoint ep
// of s, from loopback: an initialize POST to /mcp, a GET opening /sse's
// stream, a call POSTed to /rpc, a WebSocket upgrade of /ws. Rows make it
// hostile with rawRequest.with.
func natural(s *securityServer, ep string) rawRequest {
	r := rawRequest{target: path(ep), header: []string{"Host", s.addr(ep)}}
	switch ep {
	case epMCP:
		r.method, r.body = http.MethodPost, secInit
		r = r.with("Content-Type", "application/json", "Accept", "application/json, text/event-stream")
	case epSSE:
		r.method = http.MethodGet
		r = r.with("Accept", "text/event-stream")
	case epWS:
		r.method = http.MethodGet
		r = r.with("Connection", "Upgrade", "Upgrade", "websocket", "Sec-WebSocket-Version", "13",
			"Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	default:
		r.method, r.body = http.MethodPost, secCall
		r = r.with("Content-Type", "application/json")
	}
	return r
}

// naturalWith is a build of rows that send the natural request with header
// lines changed ("PORT" in a value stands for the endpoint's port).
func naturalWith(kv ...string) func(*testing.T, *securityServer, string) (rawRequest, bool) {
	return func(_ *testing.T, s *securityServer, ep string) (rawRequest, bool) {
		kv := append([]string(nil), kv...)
		for i := 1; i < len(kv); i += 2 {
			kv[i] = strings.ReplaceAll(kv[i], "PORT", s.port(ep))
		}
		return natural(s, ep).with(kv...), true
	}
}

// served is what each endpoint answers the natural request.
var served = map[string]expect{
	epMCP:     status(http.StatusOK),
	epSSE:     status(http.StatusOK),
	epRPC:     status(http.StatusOK),
	epWS:      status(http.StatusSwitchingProtocols),
	epFastRPC: status(http.StatusOK),
}

// all wants e of every endpoint.
func all(e expect) map[string]expect { return map[string]expect{"*": e} }
