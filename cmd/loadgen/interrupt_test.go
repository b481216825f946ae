package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// watched is a writer that tells, by a channel, when what was written
// holds a text.
type watched struct {
	mu   sync.Mutex
	b    bytes.Buffer
	want string
	seen chan struct{}
}

func watch(want string) *watched { return &watched{want: want, seen: make(chan struct{})} }

func (w *watched) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	had := strings.Contains(w.b.String(), w.want)
	w.b.Write(p)
	if !had && strings.Contains(w.b.String(), w.want) {
		close(w.seen)
	}
	return len(p), nil
}

func (w *watched) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// hungServer is a server that reads requests and never answers; sent
// receives a value per request read.
func hungServer(t *testing.T) (target string, sent <-chan struct{}) {
	ch := make(chan struct{}, 1024)
	return rawServer(t, func(uint64, *bufio.Writer) { ch <- struct{}{} }), ch
}

// within waits for ch for at most d, failing the test after it.
func within(t *testing.T, ch <-chan struct{}, d time.Duration, what string, stderr *watched) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(d):
		t.Fatalf("no %s within %v; stderr:\n%s", what, d, stderr)
	}
}

// interrupted runs loadgen against a hung server with a -timeout no test
// waits for, and returns its stop and abort (Ctrl-C once and twice), its
// stderr, and its end: exit status, stdout and report.
func interrupted(t *testing.T, want string, args ...string) (stop context.CancelFunc, abort chan struct{}, stderr *watched, end func() (int, string, *Report)) {
	target, sent := hungServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	abort = make(chan struct{})
	stderr = watch(want)
	path := filepath.Join(t.TempDir(), "report.json")
	var stdout bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- runInterruptible(ctx, abort, append([]string{"-q", "-json", path, "-method", "x", "-depth", "4", "-timeout", "1h"}, append(args, target)...), &stdout, stderr)
	}()
	for range 4 {
		within(t, sent, 30*time.Second, "request", stderr)
	}
	return cancel, abort, stderr, func() (int, string, *Report) {
		var c int
		select {
		case c = <-code:
		case <-time.After(30 * time.Second):
			t.Fatalf("loadgen still runs 30s after it was told to stop; stderr:\n%s", stderr)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("no report (exit %d): %v\n%s%s", c, err, stdout.String(), stderr)
		}
		var r Report
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		return c, stdout.String(), &r
	}
}

// TestLoad_ctrlCTwiceAgainstAHungServer: the first Ctrl-C stops sending
// and says what the run waits for, and how long; the second stops the
// wait at once, and the run reports its calls lost and fails (nothing
// succeeded).
func TestLoad_ctrlCTwiceAgainstAHungServer(t *testing.T) {
	const want = "loadgen: waiting up to 1h0m0s for 4 answers in flight (Ctrl-C again to stop now)\n"
	stop, abort, stderr, end := interrupted(t, want, "-d", "1h")
	stop()
	within(t, stderr.seen, 30*time.Second, "word of the wait", stderr)
	close(abort)
	code, out, r := end()
	if code != 1 || r.Requests != 4 || r.Lost != 4 || !strings.Contains(out, "no answers") {
		t.Errorf("exit %d, requests %d, lost %d; want 1, 4, 4:\n%s", code, r.Requests, r.Lost, out)
	}
}

// TestLoad_ctrlCEndsAWaitAlreadyBegun: the -n calls are sent and the
// answers do not come: the run says it waits, and for what; one Ctrl-C
// then ends the wait.
func TestLoad_ctrlCEndsAWaitAlreadyBegun(t *testing.T) {
	const want = "for 4 answers in flight (Ctrl-C to stop now)\n"
	stop, _, stderr, end := interrupted(t, want, "-n", "4")
	within(t, stderr.seen, 30*time.Second, "word of the wait", stderr)
	if s := stderr.String(); !strings.HasPrefix(s, "loadgen: waiting up to 59m5") && !strings.HasPrefix(s, "loadgen: waiting up to 1h0m0s") {
		t.Errorf("stderr %q: want the wait's time left out of -timeout 1h", s)
	}
	stop()
	if code, out, r := end(); code != 1 || r.Lost != 4 {
		t.Errorf("exit %d, lost %d; want 1, 4:\n%s", code, r.Lost, out)
	}
}

// TestInterrupts: the first signal ends stop, and only the second closes
// abort; end lets the goroutine go.
func TestInterrupts(t *testing.T) {
	sig := make(chan os.Signal)
	stop, abort, end := interrupts(sig)
	defer end()
	sig <- os.Interrupt
	<-stop.Done()
	select {
	case <-abort:
		t.Fatal("abort closed by the first signal")
	default:
	}
	sig <- os.Interrupt
	<-abort
}
