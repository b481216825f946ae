package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
)

// counted is a test server of rawServer's kind that counts what it did.
type counted struct {
	url          string
	conns, calls atomic.Int64
}

// countingServers starts n servers that answer every request with a
// result, counting the connections they accepted and the requests they
// answered.
func countingServers(t *testing.T, n int) []*counted {
	ss := make([]*counted, n)
	for i := range ss {
		s := &counted{}
		s.url = countedServer(t, func(id uint64, w *bufio.Writer) {
			s.calls.Add(1)
			result(w, id)
		}, &s.conns)
		ss[i] = s
	}
	return ss
}

// deadURL returns a loopback tcp:// target nothing listens on.
func deadURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "tcp://" + ln.Addr().String()
	ln.Close()
	return url
}

// addsUp checks that the per-target rows of r sum to its totals: each
// count of a TargetReport to the Report's member of the same name, the
// error codes to its error codes.
func addsUp(t *testing.T, r *Report) {
	t.Helper()
	total := reflect.ValueOf(r).Elem()
	typ := reflect.TypeFor[TargetReport]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		want := total.FieldByName(f.Name)
		if !want.IsValid() {
			continue // FailedConns: no total of its own
		}
		var got float64
		for _, tr := range r.Targets {
			switch v := reflect.ValueOf(tr).Field(i); v.Kind() {
			case reflect.Int, reflect.Int64:
				got += float64(v.Int())
			case reflect.Float64:
				got += v.Float()
			}
		}
		var w float64
		switch want.Kind() {
		case reflect.Int, reflect.Int64:
			w = float64(want.Int())
		case reflect.Float64:
			w = want.Float()
		default:
			continue // Target, ErrorCodes, LatencyUS: below, or no sum
		}
		if d := got - w; d > 1e-6*w || -d > 1e-6*w {
			t.Errorf("the targets' %s add up to %v; the total is %v", f.Name, got, w)
		}
	}
	codes := map[string]int64{}
	for _, tr := range r.Targets {
		for c, n := range tr.ErrorCodes {
			codes[c] += n
		}
	}
	if (len(codes) > 0 || len(r.ErrorCodes) > 0) && !reflect.DeepEqual(codes, r.ErrorCodes) {
		t.Errorf("the targets' error codes add up to %v; the totals are %v", codes, r.ErrorCodes)
	}
}

// TestLoad_spreadsAcrossTargets: two and three servers, listed in the
// argument or with -target: connection i goes to target i mod n, each
// server answers what its row of the report says, and the rows add up to
// the totals.
func TestLoad_spreadsAcrossTargets(t *testing.T) {
	const n = 3000
	for _, tc := range []struct {
		name    string
		targets int
		conns   int
		flags   int // how many of the targets go in -target flags, the rest in the argument
	}{
		{"two-listed", 2, 4, 0},
		{"three-flags", 3, 7, 3},
		{"three-both", 3, 6, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ss := countingServers(t, tc.targets)
			var args, list, urls []string
			for i, s := range ss {
				urls = append(urls, s.url)
				if i < tc.flags {
					args = append(args, "-target", s.url)
				} else {
					list = append(list, s.url)
				}
			}
			args = append(args, "-n", fmt.Sprint(n), "-c", fmt.Sprint(tc.conns), "-depth", "4")
			if len(list) > 0 {
				args = append(args, strings.Join(list, ","))
			}
			r, code, out := load(t, args...)
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			clean(t, r, n)
			if want := strings.Join(urls, ","); r.Target != want {
				t.Errorf("target %q; want %q", r.Target, want)
			}
			if len(r.Targets) != tc.targets {
				t.Fatalf("%d rows by target; want %d", len(r.Targets), tc.targets)
			}
			addsUp(t, r)
			for k, s := range ss {
				tr := r.Targets[k]
				wantConns := tc.conns / tc.targets
				if k < tc.conns%tc.targets {
					wantConns++
				}
				if tr.Target != s.url || tr.Conns != wantConns || s.conns.Load() != int64(wantConns) {
					t.Errorf("target %d: %s with %d connections, the server accepted %d; want %s with %d", k, tr.Target, tr.Conns, s.conns.Load(), s.url, wantConns)
				}
				if got := s.calls.Load(); got != tr.Responses || got != tr.Requests || tr.OK != got || got == 0 {
					t.Errorf("target %s: the server answered %d; its row says %d requests, %d responses, %d ok", s.url, got, tr.Requests, tr.Responses, tr.OK)
				}
				if tr.Errors != 0 || tr.ThroughputRPS <= 0 || tr.LatencyUS.P50 <= 0 || tr.LatencyUS.Max < tr.LatencyUS.P99 || tr.BytesSent <= 0 || tr.BytesReceived <= 0 {
					t.Errorf("target %s: %+v: want it measured, with no errors", s.url, tr)
				}
				if !strings.Contains(out, "\n  "+s.url+" ") {
					t.Errorf("the table has no row for %s:\n%s", s.url, out)
				}
			}
			if !strings.Contains(out, "by target") {
				t.Errorf("the table has no breakdown by target:\n%s", out)
			}
		})
	}
}

// TestLoad_deadTargetIsItsErrors: a target nothing listens on, among
// live ones, is reported as that target's errors: its connections
// failed, the requests they tried are its transport errors; the others
// are served as ever, and the run reports (no crash, no usage error).
func TestLoad_deadTargetIsItsErrors(t *testing.T) {
	const n = 2000
	ss := countingServers(t, 2)
	dead := deadURL(t)
	r, code, out := load(t, "-n", fmt.Sprint(n), "-c", "6", "-depth", "4", ss[0].url+","+dead+","+ss[1].url)
	if code != 0 {
		t.Errorf("exit %d; want 0 (errors, but answers came and no threshold was set):\n%s", code, out)
	}
	if len(r.Targets) != 3 {
		t.Fatalf("%d rows by target; want 3:\n%s", len(r.Targets), out)
	}
	addsUp(t, r)
	d := r.Targets[1]
	if d.Target != dead || d.Conns != 2 || d.FailedConns != 2 || d.Responses != 0 || d.Requests == 0 || d.TransportErrors != d.Requests || d.Errors != d.Requests {
		t.Errorf("the dead target's row: %+v; want its 2 connections failed and each request it was sent a transport error", d)
	}
	if r.Requests != n || r.Errors != d.Errors || r.OK != n-d.Requests {
		t.Errorf("totals: requests %d errors %d ok %d; want %d requests, the dead target's %d errors, the rest ok", r.Requests, r.Errors, r.OK, n, d.Errors)
	}
	for _, k := range []int{0, 2} {
		tr, s := r.Targets[k], ss[k/2]
		if tr.Errors != 0 || tr.FailedConns != 0 || tr.Responses != s.calls.Load() || s.conns.Load() != 2 {
			t.Errorf("live target %s: %+v; the server accepted %d connections and answered %d", s.url, tr, s.conns.Load(), s.calls.Load())
		}
	}
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "2 connections failed: "+dead) {
		t.Errorf("warnings %q: want the dead target's failed connections", r.Warnings)
	}
	if !strings.Contains(out, "2 (2 failed)") || !strings.Contains(out, "transport: ") {
		t.Errorf("the table does not show the dead target's failure:\n%s", out)
	}

	// The warning counts the connections that could not be opened, also
	// when -n is spent before a dead one's worker would have written.
	r, _, _ = load(t, "-n", "1", "-c", "6", "-depth", "1", ss[0].url+","+dead+","+ss[1].url)
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "2 connections failed: "+dead) {
		t.Errorf("-n 1: warnings %q: want the dead target's 2 failed connections", r.Warnings)
	}

	// In an open loop, the dead connections' share of the rate is not
	// sent, and the warning says why.
	r, _, out = load(t, "-rate", "400", "-d", "1s", "-c", "4", ss[0].url+","+dead)
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "2 of the 4 connections could not be opened") || r.Targets[0].Responses == 0 {
		t.Errorf("open loop with a dead target: warnings %q, live target %+v:\n%s", r.Warnings, r.Targets[0], out)
	}

	// A threshold sees the dead target's errors.
	if _, code, _ := load(t, "-n", "200", "-c", "2", "-max-errors", "0", ss[0].url+","+dead); code != 1 {
		t.Errorf("-max-errors 0 with a dead target: exit %d; want 1", code)
	}
}

// TestLoad_httpTargets: HTTP targets (two demo servers) share the run's
// clients (connections) round robin, plain JSON-RPC and MCP sessions;
// a dead one among them is its errors.
func TestLoad_httpTargets(t *testing.T) {
	const n = 1200
	a, b := startServer(t, "-listen", "http://127.0.0.1:0"), startServer(t, "-listen", "http://127.0.0.1:0")
	for _, tc := range []struct {
		name, path, method string
		args               []string
	}{
		{"rpc", "/rpc", "echo", nil},
		{"mcp", "/mcp", "tools/call", []string{"-mcp", "-tool", "echo", "-args", `{"message":"m{{seq}}"}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := []int64{a.answered(t, tc.method), b.answered(t, tc.method)}
			args := append([]string{"-n", fmt.Sprint(n), "-c", "4", "-depth", "3", "-target", a.addr + tc.path, "-target", b.addr + tc.path}, tc.args...)
			r, code, out := load(t, args...)
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			clean(t, r, n)
			addsUp(t, r)
			for k, s := range []*server{a, b} {
				if got := s.answered(t, tc.method) - before[k]; got != r.Targets[k].Responses || got == 0 || r.Targets[k].Conns != 2 {
					t.Errorf("server %d answered %d %s; its row: %+v", k, got, tc.method, r.Targets[k])
				}
			}
		})
	}
	t.Run("dead", func(t *testing.T) {
		dead := "http" + strings.TrimPrefix(deadURL(t), "tcp") + "/rpc"
		r, _, out := load(t, "-n", "400", "-c", "2", a.addr+"/rpc,"+dead)
		if len(r.Targets) != 2 {
			t.Fatalf("%d rows by target; want 2:\n%s", len(r.Targets), out)
		}
		addsUp(t, r)
		if d, l := r.Targets[1], r.Targets[0]; d.Responses != 0 || d.TransportErrors == 0 || d.Errors != d.TransportErrors+d.Lost || l.Errors != 0 || l.OK == 0 {
			t.Errorf("live %+v, dead %+v: want the dead one's requests failed, the live one's answered", l, d)
		}
	})
}

// TestLoad_stdioTargets: stdio targets, one -target each (their commands
// may hold commas): each spawned server reads its row's requests.
func TestLoad_stdioTargets(t *testing.T) {
	const n = 1000
	a, inA, _ := stdioServer(t)
	b, inB, _ := stdioServer(t)
	b += " an,argument,with,commas" // the script ignores its arguments
	r, code, out := load(t, "-n", fmt.Sprint(n), "-c", "3", "-depth", "4", "-target", a, "-target", b)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	clean(t, r, n)
	addsUp(t, r)
	if len(r.Targets) != 2 || r.Target != a+","+b {
		t.Fatalf("target %q, %d rows; want %q, 2", r.Target, len(r.Targets), a+","+b)
	}
	for k, in := range []string{inA, inB} {
		if got := lines(t, in, `"method":"echo"`); got != r.Targets[k].Requests || got == 0 {
			t.Errorf("server %d read %d requests; its row: %+v", k, got, r.Targets[k])
		}
	}
	if r.CPU.ServerPerCallUS <= 0 {
		t.Errorf("cpu %+v: want the spawned servers' CPU per call", r.CPU)
	}
	if r.Targets[0].Conns != 2 || r.Targets[1].Conns != 1 {
		t.Errorf("connections %d and %d; want 2 and 1", r.Targets[0].Conns, r.Targets[1].Conns)
	}
}

// TestLoad_oneTargetHasNoBreakdown: a run of one target reports as it
// did before there could be several: no "targets" member, no table.
func TestLoad_oneTargetHasNoBreakdown(t *testing.T) {
	ss := countingServers(t, 1)
	path := filepath.Join(t.TempDir(), "r.json")
	r, code, out := load(t, "-json", path, "-n", "100", "-c", "2", ss[0].url)
	if code != 0 || r.Targets != nil || r.Target != ss[0].url {
		t.Errorf("exit %d, target %q, targets %+v", code, r.Target, r.Targets)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(`"targets"`)) || strings.Contains(out, "by target") {
		t.Errorf("a single target's report has a breakdown:\n%s\n%s", b, out)
	}
}

// TestParseTargets reads the targets of the argument and the -target
// flags, and refuses what cannot run.
func TestParseTargets(t *testing.T) {
	for _, c := range []struct {
		flags []string
		arg   string
		want  []string // the targets' URLs; nil: an error
		err   string
	}{
		{nil, "", []string{}, ""},
		{nil, "tcp://127.0.0.1:7000", []string{"tcp://127.0.0.1:7000"}, ""},
		{nil, "tcp://127.0.0.1:7000,tcp://127.0.0.1:7001", []string{"tcp://127.0.0.1:7000", "tcp://127.0.0.1:7001"}, ""},
		{nil, "tcp://127.0.0.1:7000, unix:///tmp/s.sock", []string{"tcp://127.0.0.1:7000", "unix:///tmp/s.sock"}, ""},
		{nil, "http://h:1/mcp?a=1,2,https://h:2/mcp", []string{"http://h:1/mcp?a=1,2", "https://h:2/mcp"}, ""},
		{nil, "ws://h:1/ws,wss://h:2/ws", []string{"ws://h:1/ws", "wss://h:2/ws"}, ""},
		{nil, "stdio:./server -list a,b,tcp://x:1", []string{"stdio:./server -list a,b,tcp://x:1"}, ""},
		{[]string{"stdio:./server -a", "stdio:./server -b,c"}, "", []string{"stdio:./server -a", "stdio:./server -b,c"}, ""},
		{[]string{"tcp://127.0.0.1:1"}, "tcp://127.0.0.1:2,tcp://127.0.0.1:3", []string{"tcp://127.0.0.1:1", "tcp://127.0.0.1:2", "tcp://127.0.0.1:3"}, ""},
		{nil, "tcp://127.0.0.1:1,http://127.0.0.1:2/mcp", nil, "not a mix"},
		{[]string{"stdio:./server"}, "tcp://127.0.0.1:2", nil, "not a mix"},
		{nil, "ws://h:1/ws,http://h:1/mcp", nil, "not a mix"},
		{[]string{"tcp://127.0.0.1:1"}, "tcp://127.0.0.1:1", nil, "given twice"},
		{nil, "tcp://127.0.0.1:1,ftp://x", nil, "unknown scheme"},
		{nil, "tcp://127.0.0.1:1,", nil, "an empty target"},
		{nil, ",tcp://127.0.0.1:1", nil, "an empty target"},
	} {
		ts, err := parseTargets(c.flags, c.arg)
		if c.want == nil {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q %q: err %v; want one saying %q", c.flags, c.arg, err, c.err)
			}
			continue
		}
		got := []string{}
		for _, x := range ts {
			got = append(got, x.url)
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q %q: %q, %v; want %q", c.flags, c.arg, got, err, c.want)
		}
	}
	ts, _ := parseTargets(nil, "stdio:./server -list a,b")
	if want := []string{"./server", "-list", "a,b"}; len(ts) != 1 || !reflect.DeepEqual(ts[0].argv, want) {
		t.Errorf("stdio with commas: %+v; want argv %q", ts, want)
	}
}

// TestRun_targetUsageErrors: several targets the run cannot spread over
// are usage errors (exit 2); every target dead fails the run (exit 1).
func TestRun_targetUsageErrors(t *testing.T) {
	two := "tcp://127.0.0.1:1,tcp://127.0.0.1:2"
	for _, c := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"-c", "1", two}, "-c 1 with 2 targets", 2},
		{[]string{"-c", "2", "-target", "tcp://127.0.0.1:1", "-target", "tcp://127.0.0.1:1"}, "given twice", 2},
		{[]string{"-c", "2", "-target", "stdio:x", "tcp://127.0.0.1:1"}, "not a mix", 2},
		{[]string{"-target", ""}, "want a target URL", 2},
		{[]string{"-n", "1", "-c", "2", two}, "connection 1 of 2 to tcp://127.0.0.1:1", 1},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), c.args, &stdout, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("loadgen %q: exit %d, said %q; want exit %d saying %q", c.args, code, stderr.String(), c.code, c.want)
		}
	}
}

// TestWriteHTML_byTarget: the page has a row per target, escaped.
func TestWriteHTML_byTarget(t *testing.T) {
	r := &Report{Target: "tcp://a:1,tcp://<b>:2", Mode: "closed", Call: "echo", Conns: 2, Requests: 10, Responses: 5, OK: 5, Errors: 5, TransportErrors: 5,
		Targets: []TargetReport{
			{Target: "tcp://a:1", Conns: 1, Requests: 5, Responses: 5, OK: 5, ThroughputRPS: 5, LatencyUS: Latency{P50: 100, P90: 120, P99: 150, P999: 160, Max: 170}},
			{Target: "tcp://<b>:2", Conns: 1, FailedConns: 1, Requests: 5, Errors: 5, TransportErrors: 5},
		}}
	var b bytes.Buffer
	if err := writeHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<h2>By target</h2>", "<td>tcp://a:1</td>", "<td>tcp://&lt;b&gt;:2</td>", "1 (1 failed)", "transport: 5", "<td>100.0µs</td>", "<td>–</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<b>") {
		t.Error("a target's text went unescaped")
	}
	b.Reset()
	r.Targets = nil
	if err := writeHTML(&b, r); err != nil || strings.Contains(b.String(), "By target") {
		t.Errorf("a report of one target has a breakdown (err %v)", err)
	}
}
