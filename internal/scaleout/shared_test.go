package scaleout

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
)

// answer is a JSON-RPC answer: its result or its error.
type answer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	backend string // the instance the proxy sent the request to
}

// postJSON posts body to url with headers (pairs) and decodes the one
// answer it gets, as JSON or as the last event of an event stream.
func postJSON(t *testing.T, hc *http.Client, url, body string, headers ...string) *answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := postMCP(ctx, hc, url, body, headers...)
	if err != nil {
		t.Fatal(err)
	}
	resp, raw := r.Response, r.body
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s %s: status %d: %s", url, body, resp.StatusCode, raw)
	}
	msg := raw
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for line := range strings.Lines(string(raw)) {
			if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data:"); ok && strings.TrimSpace(d) != "" {
				msg = []byte(d)
			}
		}
	}
	a := &answer{backend: r.backend}
	if err := json.Unmarshal(msg, a); err != nil {
		t.Fatalf("POST %s: %v: %s", url, err, raw)
	}
	return a
}

// rpc calls method with params over base's /rpc (plain JSON-RPC over
// HTTP) and returns its result, failing the test on an error.
func rpc(t *testing.T, hc *http.Client, base, method, params string) (json.RawMessage, string) {
	t.Helper()
	a := postJSON(t, hc, base+"/rpc", fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params))
	if a.Error != nil {
		t.Fatalf("%s on %s: %d %s", method, base, a.Error.Code, a.Error.Message)
	}
	return a.Result, a.backend
}

// runsOf returns how many times cached_sleep has run on the instance at
// base, this run included: a call of a key nobody called before.
func runsOf(t *testing.T, hc *http.Client, base, key string) int64 {
	t.Helper()
	res, _ := rpc(t, hc, base, "cached_sleep", fmt.Sprintf(`{"ms":0,"key":%q}`, key))
	var r struct{ Runs int64 }
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatalf("cached_sleep: %v: %s", err, res)
	}
	return r.Runs
}

// TestScaleout_cachedResultComputedOnce: three identical cached_sleep
// calls made at once through the proxy, one on each instance, run the
// handler once in all (single flight across instances through Redis),
// and all three answer that run's result; so do later calls, on any
// instance. Each instance's own count of runs is read with a key nobody
// called before, before and after.
func TestScaleout_cachedResultComputedOnce(t *testing.T) {
	c := startCluster(t)
	before := map[string]int64{}
	for _, name := range instanceNames {
		before[name] = runsOf(t, c.hc, c.inst[name].url, "probe-before-"+name)
	}
	const params = `{"ms":400,"key":"shared"}`
	results := make([]json.RawMessage, 3)
	backends := make([]string, 3)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() { results[i], backends[i] = rpc(t, c.hc, c.proxy.URL(), "cached_sleep", params) })
	}
	wg.Wait()
	for range 3 {
		res, backend := rpc(t, c.hc, c.proxy.URL(), "cached_sleep", params)
		results, backends = append(results, res), append(backends, backend)
	}
	for i, r := range results {
		if !bytes.Equal(r, results[0]) {
			t.Errorf("call %d (instance %s) answered %s, call 0 (instance %s) %s", i, backends[i], r, backends[0], results[0])
		}
	}
	if !strings.Contains(string(results[0]), `"key":"shared"`) {
		t.Errorf("cached_sleep answered %s", results[0])
	}
	ran := int64(0)
	for _, name := range instanceNames {
		// The probe after counts its own run, the probe before's and,
		// if this instance ran it, the shared key's.
		ran += runsOf(t, c.hc, c.inst[name].url, "probe-after-"+name) - before[name] - 1
	}
	if ran != 1 {
		t.Errorf("the shared key's handler ran %d times across the instances, want 1", ran)
	}
}

// ext26 sends a 2026-07-28 request of the tasks extension through base's
// /mcp; name is its Mcp-Name header (the tool, or the task's id).
func ext26(t *testing.T, hc *http.Client, base, method, name, params string) (map[string]any, string) {
	t.Helper()
	meta := fmt.Sprintf(`{%q:%q,%q:{"name":"scaleout","version":"1"},%q:{"extensions":{%q:{}}}}`,
		mcp.MetaProtocolVersion, mcp.Version20260728, "io.modelcontextprotocol/clientInfo",
		"io.modelcontextprotocol/clientCapabilities", mcp.TasksExtension)
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{"_meta":%s,%s}}`, method, meta, params)
	a := postJSON(t, hc, base+"/mcp", body, "MCP-Protocol-Version", mcp.Version20260728, "Mcp-Method", method, "Mcp-Name", name)
	if a.Error != nil {
		t.Fatalf("%s through %s: %d %s", method, base, a.Error.Code, a.Error.Message)
	}
	var m map[string]any
	if err := json.Unmarshal(a.Result, &m); err != nil {
		t.Fatalf("%s: %v: %s", method, err, a.Result)
	}
	return m, a.backend
}

// TestScaleout_taskStartedOnOneCancelledFromAnother: a task of the tasks
// extension (2026-07-28) started through the proxy on one instance is
// read on the next one and cancelled on the third, and every instance
// then reads it cancelled.
func TestScaleout_taskStartedOnOneCancelledFromAnother(t *testing.T) {
	c := startCluster(t)
	created, started := ext26(t, c.hc, c.proxy.URL(), "tools/call", "slow_compute", `"name":"slow_compute","arguments":{"seconds":60}`)
	id, _ := created["taskId"].(string)
	if created["resultType"] != "task" || id == "" {
		t.Fatalf("tools/call: %v", created)
	}
	got, read := ext26(t, c.hc, c.proxy.URL(), "tasks/get", id, `"taskId":"`+id+`"`)
	if got["status"] != "working" || read == started {
		t.Fatalf("tasks/get on %s of a task started on %s: %v", read, started, got)
	}
	if _, cancelled := ext26(t, c.hc, c.proxy.URL(), "tasks/cancel", id, `"taskId":"`+id+`"`); cancelled == started || cancelled == read {
		t.Fatalf("tasks/cancel went to %s, the proxy's rotation should have chosen the third instance", cancelled)
	}
	for _, name := range instanceNames {
		if got, _ := ext26(t, c.hc, c.inst[name].url, "tasks/get", id, `"taskId":"`+id+`"`); got["status"] != "cancelled" {
			t.Errorf("tasks/get on instance %s: %v", name, got)
		}
	}
}
