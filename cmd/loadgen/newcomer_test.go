package main

import (
	"bufio"
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRun_helpGoesToStdout: -h is asked for, so the usage (with the exit
// statuses) is the answer, on stdout, exit 0; a bad flag is an error, so
// it and the usage go to stderr, exit 2.
func TestRun_helpGoesToStdout(t *testing.T) {
	for _, arg := range []string{"-h", "-help", "--help"} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{arg}, &stdout, &stderr)
		if code != 0 || stderr.Len() != 0 || !strings.HasPrefix(stdout.String(), "Usage: loadgen") ||
			!strings.Contains(stdout.String(), "Exit status:") || !strings.Contains(stdout.String(), "-timeout") {
			t.Errorf("loadgen %s: exit %d, stdout %q, stderr %q", arg, code, stdout.String(), stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-bogus"}, &stdout, &stderr)
	if code != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), "-bogus") || !strings.Contains(stderr.String(), "Usage: loadgen") {
		t.Errorf("loadgen -bogus: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

// TestRateText: the report's header says a rate once, in calls/s, and a
// ramp as one.
func TestRateText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"1000", "1,000 calls/s"},
		{"2.5", "2.5 calls/s"},
		{"100:500/3s", "100 → 500 calls/s over 3s"},
		{"1000:5000/1m30s", "1,000 → 5,000 calls/s over 1m30s"},
		{"not a rate", "not a rate"},
	} {
		if got := rateText(c.in); got != c.want {
			t.Errorf("rateText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	var b bytes.Buffer
	if err := writeTable(&b, &Report{Target: "tcp://x", Call: "echo", Mode: "open", Rate: "100:500/3s", Conns: 2}); err != nil {
		t.Fatal(err)
	}
	if head := strings.SplitN(strings.TrimSpace(b.String()), "\n", 2)[0]; !strings.Contains(head, "open loop at 100 → 500 calls/s over 3s over 2 connections") || strings.Contains(head, "/s/s") {
		t.Errorf("header %q", head)
	}
}

// TestLoad_noAnswerIsAFailure: a server that answers nothing (every call
// lost) or only with errors: the report says "no answers" rather than
// percentiles of nothing, and the run fails (exit 1); a run where some
// calls succeed does not fail for it.
func TestLoad_noAnswerIsAFailure(t *testing.T) {
	const n = 5
	silent := rawServer(t, func(uint64, *bufio.Writer) {})
	r, code, out := load(t, "-n", strconv.Itoa(n), "-depth", strconv.Itoa(n), "-timeout", "100ms", "-method", "x", silent)
	if code != 1 || r.Lost != n || r.Responses != 0 {
		t.Errorf("a silent server: exit %d, lost %d, responses %d; want 1, %d, 0", code, r.Lost, r.Responses, n)
	}
	if !regexp.MustCompile(`(?m)^ +latency +no answers$`).MatchString(out) || strings.Contains(out, "p50") {
		t.Errorf("a silent server's report:\n%s", out)
	}
	if len(r.Failed) != 1 || !strings.Contains(r.Failed[0], "no call succeeded") {
		t.Errorf("failed %q", r.Failed)
	}

	refusing := rawServer(t, func(id uint64, w *bufio.Writer) {
		w.WriteString(`{"jsonrpc":"2.0","id":` + strconv.FormatUint(id, 10) + `,"error":{"code":-32601,"message":"Method not found"}}` + "\n")
	})
	r, code, out = load(t, "-n", strconv.Itoa(n), "-method", "x", refusing)
	if code != 1 || r.Responses != n || r.OK != 0 || len(r.Failed) != 1 || !strings.Contains(out, "p50") {
		t.Errorf("a server answering errors only: exit %d, responses %d, ok %d, failed %q:\n%s", code, r.Responses, r.OK, r.Failed, out)
	}

	some := rawServer(t, func(id uint64, w *bufio.Writer) {
		if id%2 == 0 {
			result(w, id)
			return
		}
		w.WriteString(`{"jsonrpc":"2.0","id":` + strconv.FormatUint(id, 10) + `,"error":{"code":-32601,"message":"Method not found"}}` + "\n")
	})
	r, code, _ = load(t, "-n", strconv.Itoa(n), "-method", "x", some)
	if code != 0 || r.OK != n/2 || len(r.Failed) != 0 {
		t.Errorf("a server answering half with results: exit %d, ok %d, failed %q; want 0, %d, none", code, r.OK, r.Failed, n/2)
	}
}
