package demoserver

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/internal/testproc"
)

const (
	subtract1       = `{"method":"subtract","params":[42,23],"id":1}`
	subtract1Answer = `{"id":1,"result":19,"error":null}`
)

// TestStart_jsonrpc1 serves JSON-RPC 1.0 beside 2.0 with -jsonrpc1: on a
// TCP stream and on /rpc (HTTP POST), each in its own version, counted
// in mcpwire_jsonrpc1_requests_total; without the flag 1.0 is refused.
func TestStart_jsonrpc1(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(), fastIdleCleaner)
	for _, on := range []bool{true, false} {
		args := []string{"-listen", "tcp://127.0.0.1:0"}
		if on {
			args = append(args, "-jsonrpc1")
		}
		var logs testproc.LockedBuffer
		s, err := Start(args, &logs)
		if err != nil {
			t.Fatal(err)
		}
		nc, err := net.DialTimeout("tcp", strings.TrimPrefix(s.URL(), "tcp://"), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		nc.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(nc, subtract1+"\n"+subtract+"\n"); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(nc)
		want := []string{subtract1Answer, subtractAnswer}
		if !on {
			want[0] = `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: jsonrpc must be \"2.0\""}}`
		}
		for _, w := range want {
			if got, err := br.ReadString('\n'); err != nil || strings.TrimSuffix(got, "\n") != w {
				t.Errorf("-jsonrpc1=%v: answer %q %v, want %s", on, got, err, w)
			}
		}
		nc.Close()
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}

	var logs testproc.LockedBuffer
	s, err := Start([]string{"-listen", "http://127.0.0.1:0", "-jsonrpc1", "-metrics", "127.0.0.1:0"}, &logs)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hc := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
	defer hc.CloseIdleConnections()
	get := func(method, url, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, strings.TrimSuffix(string(b), "\n")
	}
	for _, tc := range []struct{ req, want string }{
		{subtract1, subtract1Answer},
		{subtract, subtractAnswer},
		{`{"method":"nope","params":[],"id":"x"}`, `{"id":"x","result":null,"error":{"code":-32601,"message":"Method not found","data":{"method":"nope"}}}`},
	} {
		if st, got := get(http.MethodPost, s.URL()+"/rpc", tc.req); st != http.StatusOK || got != tc.want {
			t.Errorf("POST /rpc %s: %d %s, want 200 %s", tc.req, st, got, tc.want)
		}
	}
	if st, got := get(http.MethodPost, s.URL()+"/rpc", `{"method":"notify_hello","params":[7],"id":null}`); st != http.StatusNoContent || got != "" {
		t.Errorf("POST /rpc, a 1.0 notification: %d %q, want 204 and no body", st, got)
	}
	_, metricsURL, _ := strings.Cut(logs.String(), " metrics=")
	metricsURL, _, _ = strings.Cut(metricsURL, "\n")
	_, body := get(http.MethodGet, metricsURL, "")
	for _, want := range []string{
		`mcpwire_jsonrpc1_requests_total{method="subtract"} 1`,
		`mcpwire_jsonrpc1_requests_total{method="(unknown)"} 1`,
		`mcpwire_jsonrpc1_requests_total{method="notify_hello"} 1`,
		`mcpwire_requests_total{code="0",method="subtract"} 2`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s:\n%s", want, body)
		}
	}
}
