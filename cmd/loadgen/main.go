// Command loadgen is a load generator for JSON-RPC 2.0 and MCP servers:
// wrk2's open loop with coordinated omission corrected, k6's thresholds
// and summaries, ghz's knowledge of the protocol, vegeta's reports. It
// checks what it measures: every id answered exactly once (lost,
// duplicated and unknown ids are counted), results compared with -expect.
//
//	loadgen                                   # the demo server, in process, for 10 s
//	loadgen -c 4 -depth 64 tcp://127.0.0.1:7000
//	loadgen -rate 1000:5000/30s -d 40s ws://127.0.0.1:8080/ws
//	loadgen -method subtract -params '[{{rand 100}}, 1]' stdio:./server --flag
//	loadgen -mcp -tool echo -args '{"message":"hi {{seq}}"}' http://127.0.0.1:8080/mcp
//	loadgen -json a.json -html a.html -max-p99 5ms -max-errors 0 unix:///tmp/s.sock
//	loadgen -c 6 tcp://127.0.0.1:7000,tcp://127.0.0.1:7001   # several: round robin, a row each
//	loadgen -compare a.json b.json
//
// It prints a live progress line on a terminal and a summary at the end.
// Ctrl-C stops sending and waits up to -timeout for the answers in
// flight; a second Ctrl-C stops waiting. The exit status is as
// exitStatus says.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/codec"
)

func main() {
	stop, abort, release := notifyInterrupts()
	code := runInterruptible(stop, abort, os.Args[1:], os.Stdout, os.Stderr)
	release()
	os.Exit(code)
}

// exitStatus is the exit status's contract, as -h prints it.
const exitStatus = `Exit status: 0 when the run is done and within its thresholds; 1 when a
threshold (-max-p99, -max-errors) is crossed, when requests were sent and
not one was answered with a result, or when the run could not start or
write its reports; 2 for a usage error.`

// headers is -H, repeatable.
type headers http.Header

func (h headers) String() string { return "" }
func (h headers) Set(s string) error {
	name, value, ok := strings.Cut(s, ":")
	if !ok || strings.TrimSpace(name) == "" {
		return fmt.Errorf("want \"Name: value\"")
	}
	http.Header(h).Add(strings.TrimSpace(name), strings.TrimSpace(value))
	return nil
}

// options are the flags.
type options struct {
	conns, depth, batch, procs   int
	pipeline                     int
	rate, method, params         string
	dur                          time.Duration
	n                            int64
	notify                       float64
	mix                          string
	mcp                          bool
	jsonrpc1                     bool
	tool, args, resource, prompt string
	expect                       string
	jsonOut, htmlOut, compare    string
	maxP99                       time.Duration
	maxErrors                    int64
	framing                      string
	timeout                      time.Duration
	header                       headers
	targets                      targetFlags // -target, repeatable
	quiet, verbose               bool
}

// run is the whole command, stopped by nothing but ctx; it returns the
// exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runInterruptible(ctx, nil, args, stdout, stderr)
}

// runInterruptible is the whole command; it returns the exit status. When
// ctx ends (the first Ctrl-C) the run stops sending and waits up to
// -timeout for the answers in flight, saying so on stderr; when abort is
// closed (the second) it stops waiting. Either way it reports what came.
func runInterruptible(ctx context.Context, abort <-chan struct{}, args []string, stdout, stderr io.Writer) int {
	o := options{header: headers{}}
	fs := flagSet(&o)
	fs.SetOutput(stderr)
	usageText, wantUsage := fs.Usage, false
	fs.Usage = func() { wantUsage = true }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			// Asked for: the usage is the answer, on stdout.
			fs.SetOutput(stdout)
			usageText()
			return 0
		}
		if wantUsage { // a bad flag: flag said which; the usage follows it
			usageText()
		}
		return 2
	}
	usage := func(err error) int {
		fmt.Fprintf(stderr, "loadgen: %v\nRun loadgen -h for usage.\n", err)
		return 2
	}
	if o.compare != "" {
		if fs.NArg() != 1 {
			return usage(fmt.Errorf("-compare A.json B.json: want the second report"))
		}
		return compare(o.compare, fs.Arg(0), stdout, stderr)
	}
	if fs.NArg() > 1 {
		return usage(fmt.Errorf("one TARGET argument at most, got %q (quote a stdio command: 'stdio:CMD ARGS'; list several targets as tcp://A,tcp://B or with -target each)", fs.Args()))
	}
	p, err := plan(o, fs.Arg(0))
	if err != nil {
		return usage(err)
	}
	rep, err := p.execute(ctx, abort, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "loadgen: %v\n", err)
		return 1
	}
	return p.finish(rep, stdout, stderr)
}

// compare prints two reports side by side.
func compare(a, b string, stdout, stderr io.Writer) int {
	ra, err := readReport(a)
	if err == nil {
		var rb *Report
		if rb, err = readReport(b); err == nil {
			err = writeCompare(stdout, ra, rb, a, b)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "loadgen: %v\n", err)
		return 1
	}
	return 0
}

// runPlan is a checked command line, ready to run.
type runPlan struct {
	o      options
	ts     []target // none: the demo server in process
	rate   *rate
	calls  *callSet
	framer codec.Framing
}

// plan checks the command line.
func plan(o options, arg string) (*runPlan, error) {
	p := &runPlan{o: o}
	var err error
	if p.ts, err = parseTargets(o.targets, arg); err != nil {
		return nil, err
	}
	switch {
	case o.conns < 1:
		return nil, fmt.Errorf("-c %d: want at least 1", o.conns)
	case o.conns < len(p.ts):
		return nil, fmt.Errorf("-c %d with %d targets: want a connection to each target at least (-c %d or more)", o.conns, len(p.ts), len(p.ts))
	case o.depth < 1:
		return nil, fmt.Errorf("-depth %d: want at least 1", o.depth)
	case o.pipeline < 1:
		return nil, fmt.Errorf("-pipeline %d: want at least 1", o.pipeline)
	case o.batch < 1:
		return nil, fmt.Errorf("-batch %d: want at least 1", o.batch)
	case o.n < 0 || o.dur < 0:
		return nil, fmt.Errorf("-n and -d must not be negative")
	case o.notify < 0 || o.notify > 1 || math.IsNaN(o.notify):
		return nil, fmt.Errorf("-notify %v: want a share from 0 to 1", o.notify)
	case o.timeout <= 0:
		return nil, fmt.Errorf("-timeout must be positive")
	case o.procs < 0:
		return nil, fmt.Errorf("-procs %d: want 0 (chosen for the target) or more", o.procs)
	case o.jsonrpc1 && o.mcp:
		return nil, fmt.Errorf("-jsonrpc1 with -mcp: MCP speaks JSON-RPC 2.0 only")
	case o.jsonrpc1 && o.batch > 1:
		return nil, fmt.Errorf("-jsonrpc1 with -batch %d: JSON-RPC 1.0 has no batches", o.batch)
	}
	if p.o.n == 0 && p.o.dur == 0 {
		p.o.dur = 10 * time.Second
	}
	if p.framer, err = codec.ParseFraming(o.framing); err != nil {
		return nil, err
	}
	if o.rate != "" {
		r, err := parseRate(o.rate)
		if err != nil {
			return nil, err
		}
		p.rate = &r
	}
	if p.calls, err = o.callSet(); err != nil {
		return nil, err
	}
	return p, nil
}

// callSet builds what the run calls from -method/-params, the MCP flags or
// -mix.
func (o options) callSet() (*callSet, error) {
	var expect []byte
	if o.expect != "" {
		var err error
		if expect, err = canonical("-expect", o.expect); err != nil {
			return nil, err
		}
	}
	s := &callSet{notify: o.notify, batch: o.batch}
	mcpCalls := o.tool != "" || o.resource != "" || o.prompt != ""
	switch {
	case o.mix != "":
		if mcpCalls {
			return nil, fmt.Errorf("-mix with -tool, -resource or -prompt: choose one")
		}
		calls, err := readMix(o.mix)
		if err != nil {
			return nil, err
		}
		for i := range calls {
			if expect != nil && calls[i].expect == nil {
				calls[i].expect = expect
			}
		}
		s.calls = calls
	case mcpCalls:
		if !o.mcp {
			return nil, fmt.Errorf("-tool, -resource and -prompt need -mcp")
		}
		c, err := mcpCall(o.tool, o.resource, o.prompt, o.args, 1, expect)
		if err != nil {
			return nil, err
		}
		s.calls = []call{c}
	default:
		params := o.params
		switch {
		case params != "" || o.method != "echo":
		case o.jsonrpc1:
			params = `["hello, world"]`
		default:
			params = `{"text":"hello, world"}`
		}
		c, err := newCall(o.method, o.method, params, 1, false, expect)
		if err != nil {
			return nil, err
		}
		s.calls = []call{c}
	}
	if o.jsonrpc1 {
		if err := s.jsonrpc1(); err != nil {
			return nil, err
		}
	}
	s.finish()
	return s, nil
}

// execute runs the load and returns its report: as runInterruptible says
// for ctx and abort.
func (p *runPlan) execute(ctx context.Context, abort <-chan struct{}, stderr io.Writer) (*Report, error) {
	o := p.o
	ts := p.ts
	inProcess := len(ts) == 0
	if inProcess {
		url, stop, err := startDemo(o.jsonrpc1)
		if err != nil {
			return nil, fmt.Errorf("the demo server: %v", err)
		}
		defer stop()
		t, _ := parseTarget(url)
		ts = []target{t}
	}
	ds := make([]*dialer, len(ts))
	for k, t := range ts {
		ds[k] = &dialer{t: t, framing: p.framer, mcp: o.mcp, header: http.Header(o.header), stderr: io.Discard, posts: o.depth, pipeline: o.pipeline}
		if o.verbose {
			ds[k].stderr = stderr
		}
		if p.rate != nil {
			ds[k].posts = 1024 // an open loop does not wait for answers
		}
	}
	procs := o.procs
	if procs == 0 {
		procs = autoProcs(ts[0], o.conns, inProcess) // the targets share a family
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	r := newRunner(o.conns, len(ts), o.depth, p.rate, p.calls, o.timeout, o.n)
	r.interrupted, r.abort = ctx.Done(), abort
	ws, failed, err := dialAll(ctx, ds, r)
	if err != nil {
		return nil, err
	}

	u0, s0 := cpuTime()
	r.start = time.Now()
	r.stats.start = r.start
	lctx := ctx
	if o.dur > 0 {
		var cancel context.CancelFunc
		lctx, cancel = context.WithTimeout(ctx, o.dur)
		defer cancel()
	}
	var prog *progress
	if !o.quiet {
		prog = newProgress(stderr, r, o.dur, o.n)
	}
	elapsed := r.drive(lctx, ws, prog, stderr)
	prog.done()
	wall := time.Since(r.start)
	u1, s1 := cpuTime()

	rep := &Report{
		Target: joinTargets(ts), Mode: "closed", Conns: o.conns, Depth: o.depth,
		Call: p.calls.describe(), Start: r.start,
	}
	if inProcess {
		rep.Target = "the demo server, in process (" + ts[0].url + ")"
	}
	if p.rate != nil {
		rep.Mode, rep.Rate, rep.Depth = "open", p.rate.text, 0
	}
	r.stats.report(rep, elapsed)
	if len(ts) > 1 {
		rep.Targets = r.stats.byTarget(ts, o.conns, failed, elapsed)
	}
	rep.CPU = CPU{UserS: (u1 - u0).Seconds(), SystemS: (s1 - s0).Seconds(), Machine: runtime.NumCPU(), Procs: procs, InProcess: inProcess}
	rep.CPU.PerCallUS = perCall(u1-u0+s1-s0, rep.Responses)
	if spent, ok := serversCPU(ds); ok {
		rep.CPU.ServerPerCallUS = perCall(spent, rep.Responses)
	}
	if wall > 0 {
		rep.CPU.Cores = (rep.CPU.UserS + rep.CPU.SystemS) / wall.Seconds()
	}
	rep.Warnings = p.warnings(rep, r)
	return rep, nil
}

// autoProcs is how many processors (GOMAXPROCS) a run uses when -procs
// does not say. A byte-stream target (stdio, tcp, unix) costs loadgen
// little per call, and one processor per four connections keeps each
// connection's reader and writer on one processor, where handing work
// from one to the other is a goroutine switch, not the wake-up of another
// thread: it cuts loadgen's CPU per call by about a third
// (BenchmarkThroughput), which leaves that much more to a server on the
// same machine. The demo server in process, HTTP and WebSocket targets
// (whose clients cost more per call) and a GOMAXPROCS set in the
// environment keep the runtime's choice.
func autoProcs(t target, conns int, inProcess bool) int {
	all := runtime.GOMAXPROCS(0)
	if inProcess || os.Getenv("GOMAXPROCS") != "" || !t.byteStream() {
		return all
	}
	return min(all, (conns+3)/4)
}

// warnings says what may make the figures wrong.
func (p *runPlan) warnings(rep *Report, r *runner) []string {
	var ws []string
	c := rep.CPU
	switch {
	case c.InProcess && c.Cores > 0.8*float64(c.Machine):
		ws = append(ws, fmt.Sprintf("the server ran in this process and the machine's %d cores were busy (%.2f): server and generator share them; load an external server to measure it alone", c.Machine, c.Cores))
	case !c.InProcess && c.Cores > 0.8*float64(c.Machine):
		ws = append(ws, fmt.Sprintf("loadgen used %.2f of the machine's %d cores: the generator, not the server, may be the bottleneck; run it on another machine or with fewer connections", c.Cores, c.Machine))
	case !c.InProcess && c.Procs < c.Machine && c.Cores > 0.8*float64(c.Procs):
		ws = append(ws, fmt.Sprintf("loadgen used %.2f cores running on %d processor%s: the generator may be the bottleneck; give it more with -procs", c.Cores, c.Procs, plural(c.Procs)))
	case !c.InProcess && p.rate == nil && c.Cores > 0.9:
		ws = append(ws, fmt.Sprintf("loadgen used %.2f cores: with few connections it may itself be the bottleneck; try more connections (-c) or depth", c.Cores))
	}
	if p.rate != nil && rep.DurationS > 0 {
		want := p.rate.to
		if got := float64(rep.Requests+rep.Notifications) / rep.DurationS; p.rate.over == 0 && got < 0.9*want {
			why := "the server or the generator could not keep up"
			if failed := failedConns(rep.Targets); failed > 0 {
				why = fmt.Sprintf("%d of the %d connections could not be opened, and their share of the rate was not sent", failed, rep.Conns)
			}
			ws = append(ws, fmt.Sprintf("sent %.0f calls/s of the %.0f asked: %s", got, want, why))
		}
	}
	r.errMu.Lock()
	for e, n := range r.errSeen {
		ws = append(ws, fmt.Sprintf("%d connection%s failed: %s", n, plural(n), e))
	}
	r.errMu.Unlock()
	return ws
}

// describe names what the run calls, for the report.
func (s *callSet) describe() string {
	var names []string
	for _, c := range s.calls {
		names = append(names, c.name)
	}
	d := strings.Join(names, ", ")
	if s.batch > 1 {
		d += fmt.Sprintf(" in batches of %d", s.batch)
	}
	if s.notify > 0 {
		d += fmt.Sprintf(", %.0f%% as notifications", 100*s.notify)
	}
	return d
}

// finish checks the thresholds, writes the reports and returns the exit
// status.
func (p *runPlan) finish(rep *Report, stdout, stderr io.Writer) int {
	if p.o.maxP99 > 0 && rep.LatencyUS.P99 > float64(p.o.maxP99.Microseconds()) {
		rep.Failed = append(rep.Failed, fmt.Sprintf("p99 latency %s is over -max-p99 %s", latencyText(rep.LatencyUS.P99), p.o.maxP99))
	}
	if p.o.maxErrors >= 0 && rep.Errors > p.o.maxErrors {
		rep.Failed = append(rep.Failed, fmt.Sprintf("%d errors, over -max-errors %d", rep.Errors, p.o.maxErrors))
	}
	if rep.Requests > 0 && rep.OK == 0 {
		rep.Failed = append(rep.Failed, fmt.Sprintf("no call succeeded: %s requests, %s answers, none of them a result%s", thousands(rep.Requests), thousands(rep.Responses), expected(p.o.expect)))
	}
	err := writeTable(stdout, rep)
	if err == nil && p.o.jsonOut != "" {
		err = writeFile(p.o.jsonOut, func(w io.Writer) error { return writeJSON(w, rep) })
	}
	if err == nil && p.o.htmlOut != "" {
		err = writeFile(p.o.htmlOut, func(w io.Writer) error { return writeHTML(w, rep) })
	}
	if err != nil {
		fmt.Fprintf(stderr, "loadgen: %v\n", err)
		return 1
	}
	if len(rep.Failed) > 0 {
		return 1
	}
	return 0
}

// expected names -expect, if given, in the words of finish.
func expected(expect string) string {
	if expect == "" {
		return ""
	}
	return " equal to -expect"
}

// writeFile writes a file with write.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %v", path, err)
	}
	return f.Close()
}
