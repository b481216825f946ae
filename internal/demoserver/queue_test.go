package demoserver

import (
	"testing"
	"time"
)

// TestDemoserver_pingAndCancelGetThroughBehindAThousandQueuedSleeps: an
// initialised MCP session sends 1,000 sleep {ms 10000} in one write (the
// pool's workers take some, the rest queue), then cancels two of them (the
// first, running, and the last, queued) and pings, with the default
// flags. The reader is not held up behind the queue: the ping is answered
// at once, far within the 10 s the work holds; both cancellations take
// effect at once (counted -32005 in the metrics, and the running sleep
// stops: one fewer handler in flight). On SIGTERM, past its shutdown
// deadline, the server answers every other request (-32004, abandoned)
// and never the two cancelled ones, as MCP requires.
func TestDemoserver_pingAndCancelGetThroughBehindAThousandQueuedSleeps(t *testing.T) {
	const n = 1000
	bin := build(t)
	cmd, found, logs := startLogging(t, bin, []string{"addr", "metrics"},
		"-listen", "tcp://127.0.0.1:0", "-metrics", "127.0.0.1:0", "-shutdown-timeout", "1s")
	metricsURL := found["metrics"]
	p := dialPeer(t, found["addr"])
	p.initialize()

	sleeps := ids(1, n)
	answers := make(map[string]<-chan *answer, n)
	reqs := make([]string, n)
	for i, id := range sleeps {
		answers[id] = p.expect(id)
		reqs[i] = request(id, "sleep", `{"ms":10000}`)
	}
	cancelled := []string{sleeps[0], sleeps[n-1]}
	pong := p.expect(`"ping"`)
	p.send(reqs...)
	sent := p.send(
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+cancelled[0]+`,"reason":"test"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+cancelled[1]+`,"reason":"test"}}`,
		request(`"ping"`, "ping", ""),
	)
	a := wait(t, pong, 10*time.Second)
	pingLat := a.at.Sub(sent)
	if a.code() != 0 || string(a.msg.Result) != "{}" {
		t.Fatalf("ping answered %s", a.raw)
	}
	if pingLat > time.Second {
		t.Errorf("the ping behind %d queued sleeps took %v", n, pingLat)
	}

	text, ok := eventually(t, metricsURL, time.Second, func(text string) bool {
		c, _ := sample(text, "mcpwire_requests_total", `method="sleep",code="-32005"`)
		f, _ := sample(text, "mcpwire_in_flight", "")
		return c == 2 && f == n-1
	})
	if !ok {
		t.Fatalf("within 1s of the cancellations, want 2 sleeps counted -32005 and %d in flight:\n%s", n-1, text)
	}
	cancelLat := time.Since(sent)
	// Every sleep in flight waits in the queue or runs: on a worker, or on
	// a goroutine of its own once the reader, which led it, was deposed.
	// The reader leads the first sleep, and then one probe whenever the
	// method's slow mark runs out (5 ms, doubling): a handful at most.
	const led = 12
	workers := mustSample(t, text, "mcpwire_workers", "")
	q := mustSample(t, text, "mcpwire_queue_depth", "")
	if q < n-1-workers-led || q > n-1 {
		t.Errorf("queue depth %v with %v workers and %d sleeps in flight", q, workers, n-1)
	}
	t.Logf("ping answered in %v behind %d sleeps; cancellations counted and the running one stopped within %v; %v queued", pingLat, n, cancelLat, q)

	start := time.Now()
	terminate(t, cmd, logs)
	t.Logf("exited %v after SIGTERM", time.Since(start))
	select { // every answer read
	case <-p.closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the connection did not end with the server")
	}
	for _, id := range cancelled {
		select {
		case a := <-answers[id]:
			t.Errorf("the cancelled request %s was answered: %s", id, a.raw)
		default:
		}
		delete(answers, id)
	}
	for id, ch := range answers {
		select {
		case a := <-ch:
			if a.code() != -32004 {
				t.Errorf("request %s answered %s at shutdown, want -32004", id, a.raw)
			}
		default:
			t.Fatalf("request %s was never answered", id)
		}
	}
	if strays := p.strays(); len(strays) > 0 {
		t.Errorf("%d answers to no request, the first %s", len(strays), strays[0].raw)
	}
}
