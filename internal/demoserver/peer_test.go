package demoserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// A plain JSON-RPC peer of the demo server over TCP loopback, for the
// black-box load tests: requests go out from any goroutine, answers are
// matched to them by id (the raw bytes of the id, as echoed).

// answer is one message the server sent, with when it arrived.
type answer struct {
	raw []byte // the whole line, without the newline
	at  time.Time
	msg struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
}

// code is the answer's error code, or 0 for a result.
func (a *answer) code() int {
	if a.msg.Error == nil {
		return 0
	}
	return a.msg.Error.Code
}

// peer is one TCP connection to the demo server. Its reader goroutine
// ends when the connection does; the test's cleanup closes it and waits.
type peer struct {
	t  *testing.T
	nc net.Conn

	wmu sync.Mutex // serialises writes

	mu      sync.Mutex
	waiting map[string]chan *answer // by raw id
	stray   []*answer               // answers nobody waited for
	closed  chan struct{}           // closed when the reader has ended
}

// dialPeer connects to addr ("tcp://HOST:PORT", as the server logs it).
func dialPeer(t *testing.T, addr string) *peer {
	t.Helper()
	nc, err := net.DialTimeout("tcp", strings.TrimPrefix(addr, "tcp://"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(time.Now().Add(60 * time.Second)) // no test here runs that long
	p := &peer{t: t, nc: nc, waiting: map[string]chan *answer{}, closed: make(chan struct{})}
	go p.read()
	t.Cleanup(func() {
		nc.Close()
		<-p.closed
	})
	return p
}

func (p *peer) read() {
	defer close(p.closed)
	br := bufio.NewReaderSize(p.nc, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return
		}
		a := &answer{raw: bytes.TrimSuffix(line, []byte("\n")), at: time.Now()}
		if err := json.Unmarshal(a.raw, &a.msg); err != nil {
			p.t.Errorf("the server sent no JSON: %q", a.raw)
			continue
		}
		p.mu.Lock()
		ch, ok := p.waiting[string(a.msg.ID)]
		if ok {
			delete(p.waiting, string(a.msg.ID))
		} else {
			p.stray = append(p.stray, a)
		}
		p.mu.Unlock()
		if ok {
			ch <- a
		}
	}
}

// expect returns where the answer with this raw id will be delivered; it
// must be called before the request is sent, once per id.
func (p *peer) expect(id string) <-chan *answer {
	ch := make(chan *answer, 1)
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, dup := p.waiting[id]; dup {
		panic("demoserver test: id " + id + " is already waited for")
	}
	p.waiting[id] = ch
	return ch
}

// send writes msgs, one per line, in one write; it returns when the write
// began (the time latencies are measured from).
func (p *peer) send(msgs ...string) time.Time {
	p.t.Helper()
	var b bytes.Buffer
	for _, m := range msgs {
		b.WriteString(m)
		b.WriteByte('\n')
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	at := time.Now()
	if _, err := p.nc.Write(b.Bytes()); err != nil {
		p.t.Errorf("send: %v", err)
	}
	return at
}

// call sends one request with this raw id and waits for its answer (at
// most within), returning it and its latency. It may run on any goroutine;
// it reports failures with Errorf and returns nil then.
func (p *peer) call(id, method, params string, within time.Duration) (*answer, time.Duration) {
	ch := p.expect(id)
	sent := p.send(request(id, method, params))
	select {
	case a := <-ch:
		return a, a.at.Sub(sent)
	case <-time.After(within):
		p.t.Errorf("no answer to %s %s within %v", method, id, within)
		return nil, within
	}
}

// wait waits for the answer delivered to ch, failing the test (on the
// test's goroutine) if none comes within.
func wait(t *testing.T, ch <-chan *answer, within time.Duration) *answer {
	t.Helper()
	select {
	case a := <-ch:
		return a
	case <-time.After(within):
		t.Fatalf("no answer within %v", within)
		return nil
	}
}

// strays returns the answers that came for no id waited for.
func (p *peer) strays() []*answer {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*answer(nil), p.stray...)
}

// request is a JSON-RPC request with this raw id and params ("" for none).
func request(id, method, params string) string {
	if params == "" {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"}`
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`
}

// initialize makes p's session an initialised MCP session.
func (p *peer) initialize() {
	p.t.Helper()
	a, _ := p.call(`"init"`, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"demoserver-test","version":"1"}}`, 10*time.Second)
	if a == nil || a.code() != 0 {
		p.t.Fatalf("initialize: %+v", a)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// scrape reads the Prometheus text the server serves at url.
func scrape(t *testing.T, url string) string {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v\n%s", url, resp.StatusCode, err, body)
	}
	return string(body)
}

// sample returns the value of the sample of the metric name in the
// Prometheus text whose labels are exactly labels ("" for none, else as
// written: method="sleep",code="0"), and whether there is one.
func sample(text, name, labels string) (float64, bool) {
	want := name
	if labels != "" {
		want += "{" + labels + "}"
	}
	for line := range strings.SplitSeq(text, "\n") {
		series, value, ok := strings.Cut(line, " ")
		if !ok || !sameSeries(series, want) {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		return v, err == nil
	}
	return 0, false
}

// sameSeries compares two series names whose labels may be written in
// another order.
func sameSeries(a, b string) bool {
	an, al, _ := strings.Cut(strings.TrimSuffix(a, "}"), "{")
	bn, bl, _ := strings.Cut(strings.TrimSuffix(b, "}"), "{")
	if an != bn {
		return false
	}
	as, bs := strings.Split(al, ","), strings.Split(bl, ",")
	if len(as) != len(bs) {
		return false
	}
	for _, l := range as {
		if !strings.Contains(","+bl+",", ","+l+",") {
			return false
		}
	}
	return true
}

// mustSample is sample, failing the test when the series is missing.
func mustSample(t *testing.T, text, name, labels string) float64 {
	t.Helper()
	v, ok := sample(text, name, labels)
	if !ok {
		t.Fatalf("no %s{%s} in the metrics:\n%s", name, labels, text)
	}
	return v
}

// eventually polls the metrics at url until ok accepts them, for at most
// within, and returns the last text read.
func eventually(t *testing.T, url string, within time.Duration, ok func(text string) bool) (string, bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		text := scrape(t, url)
		if ok(text) {
			return text, true
		}
		if time.Now().After(deadline) {
			return text, false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ids returns n raw ids: from, from+1, …
func ids(from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(from + i)
	}
	return out
}
