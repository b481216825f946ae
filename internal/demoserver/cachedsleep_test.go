package demoserver

import (
	"encoding/json"
	"strconv"
	"sync"
	"testing"
	"time"
)

// cachedSleep decodes cached_sleep's result.
func cachedSleep(t *testing.T, a *answer) cachedSleepResult {
	t.Helper()
	var r cachedSleepResult
	if a.code() != 0 || json.Unmarshal(a.msg.Result, &r) != nil {
		t.Fatalf("cached_sleep answered %s", a.raw)
	}
	return r
}

// TestDemoserver_cachedSleepRunsOnceForConcurrentCallsThenHits: 64
// identical cached_sleep calls at once, one per connection, run the
// handler once (every answer has runs 1) and each answer has its own id;
// a later identical call (its members in another order) is a hit, answered
// byte for byte with the new id 1.50 and the same runs, without sleeping;
// another key runs the handler again.
func TestDemoserver_cachedSleepRunsOnceForConcurrentCallsThenHits(t *testing.T) {
	addr, metricsURL, _ := startMetered(t)
	const n = 64
	params := `{"ms":200,"key":"k"}`
	peers := make([]*peer, n)
	for i := range peers {
		peers[i] = dialPeer(t, addr)
	}
	answers := make([]*answer, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, p := range peers {
		id := strconv.Itoa(100 + i)
		if i%2 == 1 {
			id = `"s` + strconv.Itoa(i) + `"`
		}
		wg.Go(func() {
			<-start
			answers[i], _ = p.call(id, "cached_sleep", params, 20*time.Second)
		})
	}
	began := time.Now()
	close(start)
	wg.Wait()
	took := time.Since(began)
	if t.Failed() {
		t.FailNow()
	}
	for i, a := range answers {
		want := strconv.Itoa(100 + i)
		if i%2 == 1 {
			want = `"s` + strconv.Itoa(i) + `"`
		}
		if string(a.msg.ID) != want {
			t.Errorf("call %d answered with id %s, want %s", i, a.msg.ID, want)
		}
		if r := cachedSleep(t, a); r != (cachedSleepResult{MS: 200, Key: "k", Runs: 1}) {
			t.Errorf("call %d: %+v, want runs 1 in every answer (one run for all)", i, r)
		}
	}
	t.Logf("64 concurrent cached_sleep {ms 200}: all answered in %v", took)

	before := mustSample(t, scrape(t, metricsURL), "mcpwire_cache_hits_total", "")
	a, took := peers[0].call("1.50", "cached_sleep", `{ "key" : "k", "ms" : 200 }`, 10*time.Second)
	if a == nil {
		t.FailNow()
	}
	if want := `{"jsonrpc":"2.0","id":1.50,"result":{"ms":200,"key":"k","runs":1}}`; string(a.raw) != want {
		t.Errorf("the later identical call was answered\n %s\nwant\n %s", a.raw, want)
	}
	if took >= 200*time.Millisecond {
		t.Errorf("the hit took %v: it slept", took)
	}
	text := scrape(t, metricsURL)
	if hits := mustSample(t, text, "mcpwire_cache_hits_total", ""); hits != before+1 {
		t.Errorf("cache hits %v after the later call, want %v", hits, before+1)
	}
	if v := mustSample(t, text, "mcpwire_requests_total", `method="cached_sleep",code="0"`); v != n+1 {
		t.Errorf("cached_sleep results counted %v, want %d", v, n+1)
	}
	t.Logf("the hit was answered in %v", took)

	a, _ = peers[1].call("2", "cached_sleep", `{"ms":0,"key":"other"}`, 10*time.Second)
	if a == nil {
		t.FailNow()
	}
	if r := cachedSleep(t, a); r != (cachedSleepResult{MS: 0, Key: "other", Runs: 2}) {
		t.Errorf("another key: %+v, want a second run", r)
	}
}
