package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTemplate_rendersPlaceholders(t *testing.T) {
	tp, err := parseTemplate(`{"n":{{seq}},"r":{{rand 10}},"s":"{{randstr 6}}","c":{{choice 1,2,3}}}`)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	for seq := uint64(1); seq <= 50; seq++ {
		out := string(tp.append(nil, seq, r))
		var v struct {
			N, R, C int
			S       string
		}
		if err := unmarshalJSON(out, &v); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		if v.N != int(seq) || v.R < 0 || v.R >= 10 || len(v.S) != 6 || v.C < 1 || v.C > 3 {
			t.Errorf("seq %d rendered %s", seq, out)
		}
	}
}

func TestTemplate_refusesBadPlaceholders(t *testing.T) {
	for _, s := range []string{`{{seq`, `{{rand}}`, `{{rand -1}}`, `{{randstr x}}`, `{{choice}}`, `{{nope}}`} {
		if _, err := parseTemplate(s); err == nil {
			t.Errorf("%s: no error", s)
		}
	}
}

func TestNewCall_checksParamsOnceRendered(t *testing.T) {
	for _, params := range []string{`{"a":}`, `{"a":{{rand 5}}`, `42`, `"text"`} {
		if _, err := newCall("m", "m", params, 1, false, nil); err == nil {
			t.Errorf("params %s: no error", params)
		}
	}
	c, err := newCall("m", "m", `[{{rand 100}}, 1]`, 1, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := string(appendCall(nil, &c, []byte("7"), 1, rand.New(rand.NewPCG(1, 1))))
	if !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":7,"method":"m","params":[`) {
		t.Errorf("request %s", got)
	}
	if got := string(appendCall(nil, &c, nil, 1, rand.New(rand.NewPCG(1, 1)))); strings.Contains(got, `"id"`) {
		t.Errorf("notification %s has an id", got)
	}
}

// TestAppendCall_eachShape: a call without params, with params that have
// no placeholders (rendered once) and with placeholders, as requests and
// as notifications, each one line of valid JSON.
func TestAppendCall_eachShape(t *testing.T) {
	for _, c := range []struct{ params, request, notification string }{
		{"", `{"jsonrpc":"2.0","id":12,"method":"m"}`, `{"jsonrpc":"2.0","method":"m"}`},
		{"{\n \"a\": [1,\n2]\n}", `{"jsonrpc":"2.0","id":12,"method":"m","params":{  "a": [1, 2] }}`, `{"jsonrpc":"2.0","method":"m","params":{  "a": [1, 2] }}`},
		{`{"seq":{{seq}}}`, `{"jsonrpc":"2.0","id":12,"method":"m","params":{"seq":5}}`, `{"jsonrpc":"2.0","method":"m","params":{"seq":5}}`},
	} {
		call, err := newCall("m", "m", c.params, 1, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		rnd := rand.New(rand.NewPCG(1, 1))
		if got := string(appendCall(nil, &call, []byte("12"), 5, rnd)); got != c.request {
			t.Errorf("params %q: request %s; want %s", c.params, got, c.request)
		}
		if got := string(appendCall(nil, &call, nil, 5, rnd)); got != c.notification {
			t.Errorf("params %q: notification %s; want %s", c.params, got, c.notification)
		}
	}
}

func TestParseRate(t *testing.T) {
	r, err := parseRate("1000:5000/30s")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at   time.Duration
		want float64
	}{{0, 1000}, {15 * time.Second, 3000}, {30 * time.Second, 5000}, {time.Minute, 5000}} {
		if got := r.at(c.at); got != c.want {
			t.Errorf("rate at %v = %v; want %v", c.at, got, c.want)
		}
	}
	for _, bad := range []string{"", "0", "-5", "x", "1:2", "1:2/x", "1:0/1s"} {
		if _, err := parseRate(bad); err == nil {
			t.Errorf("-rate %q: no error", bad)
		}
	}
	// Two connections at 1000/s in all: each sends every 2 ms, half an
	// interval apart.
	a, b := newPacer(rate{from: 1000, to: 1000}, 0, 2), newPacer(rate{from: 1000, to: 1000}, 1, 2)
	if a.take() != 0 || a.take() != 2*time.Millisecond || b.take() != time.Millisecond {
		t.Error("pacer: want sends at 0, 2ms on one connection and 1ms on the other")
	}
}

func TestReadMix(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mix.yaml")
	os.WriteFile(path, []byte(`
- method: subtract
  params: '[{{rand 100}}, 1]'
  weight: 3
- method: echo
  params: {"text": "x"}
  expect: {"text": "x"}
- tool: echo
  args: {"message": "hi"}
- method: notify_hello
  params: [1]
  notify: true
`), 0o644)
	calls, err := readMix(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 4 || calls[0].weight != 3 || string(calls[1].expect) != `{"text":"x"}` || string(calls[2].method) != `"tools/call"` || !calls[3].notify {
		t.Errorf("calls %+v", calls)
	}
	s := &callSet{calls: calls}
	s.finish()
	r := rand.New(rand.NewPCG(1, 1))
	picked := map[string]int{}
	for range 6000 {
		picked[s.pick(r).name]++
	}
	if picked["subtract"] < 2500 || picked["subtract"] > 3500 {
		t.Errorf("subtract picked %d of 6000 with half the weight", picked["subtract"])
	}
	for _, bad := range []string{`[]`, `- {method: a, tool: b}`, `- {tool: b, notify: true}`, `- {method: a, weight: -1}`, `{`} {
		os.WriteFile(path, []byte(bad), 0o644)
		if _, err := readMix(path); err == nil {
			t.Errorf("mix %s: no error", bad)
		}
	}
}

// TestLoad_expectCountsMismatches: -expect checks every result.
func TestLoad_expectCountsMismatches(t *testing.T) {
	s := startServer(t, "-listen", "tcp://127.0.0.1:0")
	r, code, _ := load(t, "-n", "200", "-method", "subtract", "-params", "[{{choice 3,5}}, 1]", "-expect", "2", "-max-errors", "0", s.addr)
	if code != 1 || r.Mismatches < 50 || r.Mismatches > 150 || r.OK+r.Mismatches != 200 {
		t.Errorf("exit %d, ok %d, mismatches %d: want about half of 200 mismatched, and exit 1", code, r.OK, r.Mismatches)
	}
}
