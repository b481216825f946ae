package demoserver

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/internal/testproc"
)

const (
	subtract       = `{"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}`
	subtractAnswer = `{"jsonrpc":"2.0","id":1,"result":19}`
)

// fastIdleCleaner ignores the goroutine of fasthttp's that outlives a
// server (the front door of -http-server fast, the default, and
// -fast-rpc's) for up to 10 s: its idle-worker cleaner (see Server.Close).
var fastIdleCleaner = goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2")

// TestStart_servesTCPUntilClose: Start returns once the server listens on
// the port it picked, which answers a call; Close shuts it down cleanly
// and leaves no goroutine behind.
func TestStart_servesTCPUntilClose(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(), fastIdleCleaner)
	var logs testproc.LockedBuffer
	s, err := Start([]string{"-listen", "tcp://127.0.0.1:0"}, &logs)
	if err != nil {
		t.Fatal(err)
	}
	url := s.URL()
	if !strings.HasPrefix(url, "tcp://127.0.0.1:") || strings.HasSuffix(url, ":0") {
		t.Errorf("URL() = %q, want tcp://127.0.0.1:PORT", url)
	}
	nc, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "tcp://"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(nc, subtract+"\n"); err != nil {
		t.Fatal(err)
	}
	got, err := bufio.NewReader(nc).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	if !sameJSON(t, got, []byte(subtractAnswer)) {
		t.Errorf("got %s, want %s", got, subtractAnswer)
	}
	nc.Close()
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close again: %v", err)
	}
	for _, want := range []string{"addr=" + url, `cause="closed by Server.Close"`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log does not say %s:\n%s", want, &logs)
		}
	}
}

// TestStart_servesHTTPAndMetrics: with -listen http://127.0.0.1:0, URL is
// the base URL, /rpc answers under it, and -metrics serves at the URL it
// logs.
func TestStart_servesHTTPAndMetrics(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(), fastIdleCleaner)
	var logs testproc.LockedBuffer
	s, err := Start([]string{"-listen", "http://127.0.0.1:0", "-metrics", "127.0.0.1:0"}, &logs)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	url := s.URL()
	if !strings.HasPrefix(url, "http://127.0.0.1:") || strings.HasSuffix(url, ":0") {
		t.Errorf("URL() = %q, want http://127.0.0.1:PORT", url)
	}
	hc := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
	defer hc.CloseIdleConnections()
	subtractOver(t, url)

	_, metricsURL, ok := strings.Cut(logs.String(), " metrics=")
	metricsURL, _, _ = strings.Cut(metricsURL, "\n")
	if !ok || !strings.HasPrefix(metricsURL, "http://127.0.0.1:") || !strings.HasSuffix(metricsURL, "/metrics") {
		t.Fatalf("no metrics=URL logged:\n%s", &logs)
	}
	resp, err := hc.Get(metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `mcpwire_requests_total{code="0",method="subtract"} 1`) {
		t.Errorf("GET %s: %v %v, want 200 and the call counted:\n%s", metricsURL, resp.Status, err, body)
	}

	hc.CloseIdleConnections()
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TestStart_refusesStdioAndUsageErrors: Start serves an address, never
// stdio; a usage error, or an address it cannot bind, is an error and no
// server runs.
func TestStart_refusesStdioAndUsageErrors(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(), fastIdleCleaner)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "not stdio"},
		{[]string{"-listen", "stdio"}, "not stdio"},
		{[]string{"-nope"}, "demoserver: flag provided but not defined: -nope"},
		{[]string{"-h"}, "demoserver: flag: help requested"},
		{[]string{"-listen", "ftp://x"}, "demoserver: transport: "},
		{[]string{"-listen", "tcp://127.0.0.1:0", "-page-size", "0"}, "demoserver: -page-size and -watch-interval must be positive"},
		{[]string{"-listen", "tcp://127.0.0.1:0", "extra"}, `demoserver: unexpected arguments: ["extra"]`},
		{[]string{"-listen", "tcp://127.0.0.1:0", "-keepalive", "-1s"}, "demoserver: -keepalive -1s: want a positive interval"},
		{[]string{"-listen", "tcp://127.0.0.1:0", "-cors", "*"}, "demoserver: -cors needs -listen http://HOST:PORT"},
		{[]string{"-listen", "tcp://" + taken.Addr().String()}, "address already in use"},
		{[]string{"-listen", "http://" + taken.Addr().String()}, "address already in use"},
		{[]string{"-listen", "tcp://127.0.0.1:0", "-metrics", taken.Addr().String()}, "address already in use"},
	} {
		s, err := Start(tc.args, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Start(%q): %v, want an error saying %q", tc.args, err, tc.want)
		}
		if s != nil {
			t.Errorf("Start(%q) returned a server", tc.args)
			s.Close()
		}
	}
}

// With -cors, a listed origin's preflight to /mcp is answered for the
// browser; any other origin is still refused 403.
func TestStart_corsLetsTheListedOriginsIn(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(), fastIdleCleaner)
	s, err := Start([]string{"-listen", "http://127.0.0.1:0", "-cors", "http://app.test, http://other.test"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hc := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
	defer hc.CloseIdleConnections()
	preflight := func(origin string) *http.Response {
		req, err := http.NewRequest(http.MethodOptions, s.URL()+"/mcp", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type, mcp-protocol-version")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if r := preflight("http://app.test"); r.StatusCode >= 300 || r.Header.Get("Access-Control-Allow-Origin") != "http://app.test" {
		t.Errorf("listed origin: %s, Access-Control-Allow-Origin %q", r.Status, r.Header.Get("Access-Control-Allow-Origin"))
	}
	if r := preflight("http://evil.test"); r.StatusCode != http.StatusForbidden {
		t.Errorf("unlisted origin: %s, want 403", r.Status)
	}
}

// With -keepalive, the server pings an MCP client: answered pings keep the
// session; once the client falls silent it is disconnected after the
// misses allowed.
func TestStart_keepalivePingsTheClient(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(), fastIdleCleaner)
	s, err := Start([]string{"-listen", "tcp://127.0.0.1:0", "-keepalive", "20ms"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	nc, err := net.Dial("tcp", strings.TrimPrefix(s.URL(), "tcp://"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(nc)
	send := func(line string) {
		if _, err := nc.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if _, err := br.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// Answer two pings, then fall silent: the session must end.
	pings := 0
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if pings < 3 {
				t.Fatalf("the session ended after %d pings: %v", pings, err)
			}
			return // closed after the misses: what -keepalive promises
		}
		if !strings.Contains(line, `"method":"ping"`) {
			continue
		}
		if pings++; pings <= 2 {
			id := line[strings.Index(line, `"id":`)+5:]
			id = id[:strings.IndexAny(id, ",}")]
			send(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`)
		}
	}
}

// -handoff is still accepted, and changes nothing: every request for the
// pool goes to its workers.
func TestStart_handoffIsAcceptedAndHasNoEffect(t *testing.T) {
	_, plain, err := parseFlags([]string{"-listen", "tcp://127.0.0.1:0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	_, handOff, err := parseFlags([]string{"-listen", "tcp://127.0.0.1:0", "-handoff"}, io.Discard)
	if err != nil {
		t.Fatalf("-handoff refused: %v", err)
	}
	if !reflect.DeepEqual(plain, handOff) {
		t.Errorf("-handoff changed the configuration:\n%+v\n%+v", plain, handOff)
	}
}
