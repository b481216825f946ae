package scaleout

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/redisstore"
)

// session25 is a 2025-11-25 session opened over raw HTTP on one
// instance's /mcp.
type session25 struct {
	t    *testing.T
	hc   *http.Client
	url  string // the instance's /mcp
	id   string // Mcp-Session-Id
	next int    // the next request id
}

// open25 initializes a session on base's /mcp.
func open25(t *testing.T, hc *http.Client, base string) *session25 {
	t.Helper()
	s := &session25{t: t, hc: hc, url: base + "/mcp", next: 1}
	initialize := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + mcp.Version20251125 +
		`","capabilities":{},"clientInfo":{"name":"scaleout","version":"1"}}}`
	resp, body := s.post(initialize)
	// A 503 says retry: the store did not answer in time (its first
	// command dials Redis, which a loaded machine can make slow).
	for try := 0; resp.StatusCode == http.StatusServiceUnavailable && try < 5; try++ {
		t.Logf("initialize on %s: %d %s; again", base, resp.StatusCode, body)
		time.Sleep(200 * time.Millisecond)
		resp, body = s.post(initialize)
	}
	s.id = resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || s.id == "" || !strings.Contains(body, `"protocolVersion":"`+mcp.Version20251125+`"`) {
		t.Fatalf("initialize on %s: %d %q %s", base, resp.StatusCode, s.id, body)
	}
	if resp, body := s.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d %s", resp.StatusCode, body)
	}
	return s
}

// call sends a request of the session and returns its answer stream's
// body (SSE events or one JSON answer), failing the test unless it
// answers the request's id with a result.
func (s *session25) call(method, params string) string {
	s.t.Helper()
	id := s.next
	s.next++
	resp, body := s.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, fmt.Sprintf(`"id":%d,"result"`, id)) {
		s.t.Fatalf("%s: %d %s", method, resp.StatusCode, body)
	}
	return body
}

// post sends msg as the session (its id, once it has one) and reads the
// whole answer.
func (s *session25) post(msg string) (*http.Response, string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var headers []string
	if s.id != "" {
		headers = []string{"Mcp-Session-Id", s.id, "MCP-Protocol-Version", mcp.Version20251125}
	}
	r, err := postMCP(ctx, s.hc, s.url, msg, headers...)
	if err != nil {
		s.t.Fatal(err)
	}
	return r.Response, string(r.body)
}

// keyKind is what TestScaleout_redisSizing measured of one kind of key.
type keyKind struct {
	keys, bytes int64
	types       map[string]bool
	minTTL      time.Duration
}

// TestScaleout_redisSizing measures what 2025-era sessions, their events
// and state (a log level set), and cached results (one cached_sleep
// result per session) take in Redis (docs/scale-out.md, "Redis sizing"): it opens
// sessions spread over the instances, each calling a tool that sends
// events (test_tool_with_logging: three log messages and the result, four
// messages on the POST's SSE stream), then reads every key under the prefix with
// SCAN, TYPE, PTTL and MEMORY USAGE, and logs (go test -v) by kind of
// key — the part of the name after the prefix, up to the first colon —
// the keys, their bytes, and bytes per session and per event. It fails if
// a key lacks the prefix or a time to live (the rules of
// redisstore/keys.md). Until the stores are applied (shareThrough) it
// finds no key.
func TestScaleout_redisSizing(t *testing.T) {
	c := startCluster(t)
	const sessions, eventsPerSession = 30, 4
	for i := range sessions {
		s := open25(t, c.hc, c.inst[instanceNames[i%len(instanceNames)]].url)
		body := s.call("tools/call", `{"name":"test_tool_with_logging","arguments":{}}`)
		if n := strings.Count(body, `"method":"notifications/message"`) + 1; n != eventsPerSession {
			t.Fatalf("test_tool_with_logging sent %d messages, want %d: %s", n, eventsPerSession, body)
		}
		s.call("logging/setLevel", `{"level":"info"}`) // the session's state
		rpc(t, c.hc, c.proxy.URL(), "cached_sleep", fmt.Sprintf(`{"ms":0,"key":"sizing-%d"}`, i))
	}
	rdb := c.redisClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	kinds := map[string]*keyKind{}
	var total int64
	iter := rdb.Scan(ctx, 0, "*", 1000).Iterator()
	for iter.Next(ctx) {
		key := iter.Val()
		rest, ok := strings.CutPrefix(key, redisstore.DefaultPrefix)
		if !ok {
			t.Errorf("key %q lacks the prefix %q", key, redisstore.DefaultPrefix)
			continue
		}
		kind, _, _ := strings.Cut(rest, ":")
		ttl, err := rdb.PTTL(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		switch ttl { // go-redis gives PTTL's -1 and -2 as they are
		case -1:
			t.Errorf("key %q has no time to live", key)
			continue
		case -2: // expired since SCAN: it had one
			continue
		}
		size, err := rdb.MemoryUsage(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		typ, err := rdb.Type(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		k := kinds[kind]
		if k == nil {
			k = &keyKind{types: map[string]bool{}, minTTL: ttl}
			kinds[kind] = k
		}
		k.keys++
		k.bytes += size
		k.types[typ] = true
		k.minTTL = min(k.minTTL, ttl)
		total += size
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	t.Logf("%d sessions (2025-11-25, spread over %d instances), %d events each; MEMORY USAGE by kind of key:", sessions, len(instanceNames), eventsPerSession)
	t.Logf("%-14s %6s %10s %10s %12s %12s %-10s %s", "kind", "keys", "bytes", "bytes/key", "bytes/sess", "bytes/event", "min TTL", "types")
	for _, name := range names {
		k := kinds[name]
		var types []string
		for typ := range k.types {
			types = append(types, typ)
		}
		sort.Strings(types)
		t.Logf("%-14s %6d %10d %10d %12d %12d %-10v %s", name, k.keys, k.bytes, k.bytes/k.keys,
			k.bytes/sessions, k.bytes/(sessions*eventsPerSession), k.minTTL.Round(time.Second), strings.Join(types, ","))
	}
	t.Logf("total %d bytes in %d kinds of key", total, len(kinds))
}
