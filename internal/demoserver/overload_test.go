package demoserver

import (
	"encoding/json"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestDemoserver_rejectsPastMaxInFlightAtOnce: with -overload reject
// -max-inflight 8, 16 clients sharing one connection call sleep {ms 50}
// for a second (after a -32000 a client waits the retryAfterMs it was
// given). Every request gets a result or -32000 with data.retryAfterMs;
// accepted + rejected = sent; refusals come at once, accepted calls in
// about their 50 ms; no more ran than 8 at a time allow; and the server's
// metrics count what the clients saw.
func TestDemoserver_rejectsPastMaxInFlightAtOnce(t *testing.T) {
	addr, metricsURL, _ := startMetered(t, "-overload", "reject", "-max-inflight", "8")
	p := dialPeer(t, addr)
	const (
		clients    = 16
		maxCalls   = 100 // per client
		offeredFor = time.Second
		params     = `{"ms":50}`
	)
	type outcome struct {
		accepted, rejected int
		acceptedLat        []time.Duration
		rejectedLat        []time.Duration
	}
	results := make([]outcome, clients)
	// The first call of every client goes out in one write, so that the
	// reader meets 16 requests at once: 8 of them find no room.
	firsts := make([]<-chan *answer, clients)
	batch := make([]string, clients)
	for c := range clients {
		id := strconv.Itoa(c * 1000)
		firsts[c] = p.expect(id)
		batch[c] = request(id, "sleep", params)
	}
	began := p.send(batch...)
	deadline := began.Add(offeredFor)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			o := &results[c]
			var a *answer
			var lat time.Duration
			select {
			case a = <-firsts[c]:
				lat = a.at.Sub(began)
			case <-time.After(10 * time.Second):
				t.Errorf("client %d: no answer to its first call", c)
				return
			}
			for n := 1; ; n++ {
				switch a.code() {
				case 0:
					if string(a.msg.Result) != "50" {
						t.Errorf("sleep answered %s", a.raw)
					}
					o.accepted++
					o.acceptedLat = append(o.acceptedLat, lat)
				case -32000:
					var data struct {
						RetryAfterMS *int `json:"retryAfterMs"`
					}
					if json.Unmarshal(a.msg.Error.Data, &data) != nil || data.RetryAfterMS == nil || *data.RetryAfterMS <= 0 {
						t.Errorf("-32000 without a positive data.retryAfterMs: %s", a.raw)
						return
					}
					o.rejected++
					o.rejectedLat = append(o.rejectedLat, lat)
					time.Sleep(time.Duration(*data.RetryAfterMS) * time.Millisecond)
				default:
					t.Errorf("neither a result nor -32000: %s", a.raw)
					return
				}
				if n == maxCalls || time.Now().After(deadline) {
					return
				}
				if a, lat = p.call(strconv.Itoa(c*1000+n), "sleep", params, 10*time.Second); a == nil {
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(began)
	if t.Failed() {
		t.FailNow()
	}
	var all outcome
	for _, o := range results {
		all.accepted += o.accepted
		all.rejected += o.rejected
		all.acceptedLat = append(all.acceptedLat, o.acceptedLat...)
		all.rejectedLat = append(all.rejectedLat, o.rejectedLat...)
	}
	sent := len(all.acceptedLat) + len(all.rejectedLat)
	if all.accepted == 0 || all.rejected == 0 || all.accepted+all.rejected != sent {
		t.Fatalf("accepted %d, rejected %d, sent %d", all.accepted, all.rejected, sent)
	}
	if strays := p.strays(); len(strays) > 0 {
		t.Errorf("%d answers to no request, the first %s", len(strays), strays[0].raw)
	}
	// Each accepted call holds one of 8 slots for at least 50 ms.
	if most := 8 * (int(elapsed/(50*time.Millisecond)) + 1); all.accepted > most {
		t.Errorf("%d calls accepted in %v: more than 8 at a time ran", all.accepted, elapsed)
	}
	slices.Sort(all.acceptedLat)
	slices.Sort(all.rejectedLat)
	// Loose bounds: the machine is shared.
	if worst := all.rejectedLat[len(all.rejectedLat)-1]; worst > 250*time.Millisecond {
		t.Errorf("a refusal took %v", worst)
	}
	if worst := all.acceptedLat[len(all.acceptedLat)-1]; worst > time.Second {
		t.Errorf("an accepted sleep of 50 ms took %v", worst)
	}
	t.Logf("%d sent in %v: %d accepted (latency median %v, max %v), %d rejected (median %v, max %v)",
		sent, elapsed.Round(time.Millisecond),
		all.accepted, all.acceptedLat[len(all.acceptedLat)/2], all.acceptedLat[len(all.acceptedLat)-1],
		all.rejected, all.rejectedLat[len(all.rejectedLat)/2], all.rejectedLat[len(all.rejectedLat)-1])

	text := scrape(t, metricsURL)
	for _, c := range []struct {
		name, labels string
		want         int
	}{
		{"mcpwire_requests_total", `method="sleep",code="0"`, all.accepted},
		{"mcpwire_requests_total", `method="sleep",code="-32000"`, all.rejected},
		{"mcpwire_rejected_total", `method="sleep"`, all.rejected},
		{"mcpwire_request_duration_seconds_count", `method="sleep"`, all.accepted},
	} {
		if got := mustSample(t, text, c.name, c.labels); got != float64(c.want) {
			t.Errorf("%s{%s} = %v, want %d", c.name, c.labels, got, c.want)
		}
	}
	// A handler leaves the count in flight just after its answer is sent.
	if text, ok := eventually(t, metricsURL, 5*time.Second, func(text string) bool {
		return mustSample(t, text, "mcpwire_in_flight", "") == 0
	}); !ok {
		t.Errorf("handlers still in flight once every call was answered:\n%s", text)
	}
}
