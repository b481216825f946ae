package demoserver

import (
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/internal/redistest"
	"github.com/mcpwire/mcpwire/internal/testproc"
)

// startLogged starts the demo server in this process with args, its log
// in the buffer returned; it is closed when the test ends.
func startLogged(t *testing.T, args ...string) (*Server, *testproc.LockedBuffer) {
	t.Helper()
	logs := &testproc.LockedBuffer{}
	s, err := Start(args, logs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, logs
}

// noLeaks checks, once everything the test started has been stopped
// (its cleanups, redis-server's included), that no goroutine is left.
func noLeaks(t *testing.T) {
	opts := []goleak.Option{goleak.IgnoreCurrent(), fastIdleCleaner}
	t.Cleanup(func() { goleak.VerifyNone(t, opts...) })
}

// logged waits (at most 10 s) until the log holds want.
func logged(t *testing.T, logs *testproc.LockedBuffer, want string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(logs.String(), want); {
		if time.Now().After(deadline) {
			t.Fatalf("the log never said %q:\n%s", want, logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// loggedValue returns the first value logged for key ("key=VALUE").
func loggedValue(t *testing.T, logs *testproc.LockedBuffer, key string) string {
	t.Helper()
	_, v, ok := strings.Cut(logs.String(), " "+key+"=")
	if !ok {
		t.Fatalf("no %s= logged:\n%s", key, logs)
	}
	v, _, _ = strings.Cut(v, "\n")
	v, _, _ = strings.Cut(v, " ")
	return v
}

// subtractOver posts the specification's subtract to /rpc and fails the
// test unless it is answered.
func subtractOver(t *testing.T, base string) {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
	defer hc.CloseIdleConnections()
	resp, err := hc.Post(base+"/rpc", "application/json", strings.NewReader(subtract))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || !sameJSON(t, body, []byte(subtractAnswer)) {
		t.Fatalf("POST /rpc: %v %s %v, want 200 %s", resp.Status, body, err, subtractAnswer)
	}
}

// With -redis and -instance, the server says on every log line which
// instance it is, that Redis answers, and names itself in
// mcpwire_instance_info; Close closes the store and leaves no goroutine.
func TestStart_redisInstanceIsLoggedAndMetered(t *testing.T) {
	noLeaks(t)
	rs := redistest.Start(t)
	s, logs := startLogged(t, "-listen", "http://127.0.0.1:0", "-metrics", "127.0.0.1:0",
		"-redis", rs.URL(), "-instance", "a-1", "-redis-prefix", "test:")
	subtractOver(t, s.URL())
	logged(t, logs, "redis answers: sharing state through it")
	if v := mustSample(t, scrape(t, loggedValue(t, logs, "metrics")), "mcpwire_instance_info", `instance="a-1"`); v != 1 {
		t.Errorf("mcpwire_instance_info = %v, want 1", v)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(logs.String()) {
		if !strings.Contains(line, " instance=a-1") {
			t.Errorf("a log line without the instance: %q", line)
		}
	}
}

// Without -instance the instance is named by host and pid, on every log
// line and in the metrics, with or without -redis.
func TestStart_instanceDefaultsToHostAndPID(t *testing.T) {
	noLeaks(t)
	want := instanceName("")
	s, logs := startLogged(t, "-listen", "tcp://127.0.0.1:0", "-metrics", "127.0.0.1:0")
	if v := mustSample(t, scrape(t, loggedValue(t, logs, "metrics")), "mcpwire_instance_info", `instance="`+want+`"`); v != 1 {
		t.Errorf("mcpwire_instance_info{instance=%q} = %v, want 1", want, v)
	}
	s.Close()
	if !strings.Contains(logs.String(), " instance="+want+" ") || !strings.HasSuffix(want, "-"+strconv.Itoa(os.Getpid())) {
		t.Errorf("instance %q not logged:\n%s", want, logs)
	}
}

// A Redis that does not answer at start is no reason not to serve: the
// server logs it, serves, and logs again once Redis answers, with the
// same Store (no restart).
func TestStart_redisDownAtStartServesAndRecovers(t *testing.T) {
	noLeaks(t)
	rs := redistest.Start(t)
	rs.Kill()
	start := time.Now()
	s, logs := startLogged(t, "-listen", "http://127.0.0.1:0", "-redis", rs.URL(), "-instance", "b")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Start took %v with Redis down", d)
	}
	logged(t, logs, "redis does not answer: serving on")
	subtractOver(t, s.URL())
	rs.Restart()
	logged(t, logs, "redis answers now: sharing state through it")
	subtractOver(t, s.URL())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// -redis, -redis-prefix and -instance are checked as flags: a usage
// error that never repeats the URL's password.
func TestStart_redisFlagsAreChecked(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-redis", "http://127.0.0.1:6379"}, "-redis: want redis://"},
		{[]string{"-redis", "redis://u:s3cret@127.0.0.1:6379/x"}, "-redis: want redis://"},
		{[]string{"-redis", "redis://u:s3cret@127.0.0.1:6379/0%zz"}, "-redis: want redis://"},
		{[]string{"-redis", "redis://127.0.0.1:6379/0", "-redis-prefix", ""}, "-redis-prefix: want a prefix"},
		{[]string{"-instance", "a b"}, `-instance "a b": want`},
		{[]string{"-instance", strings.Repeat("x", 65)}, "-instance"},
	} {
		args := append([]string{"-listen", "tcp://127.0.0.1:0"}, tc.args...)
		s, err := Start(args, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Start(%q): %v, want an error saying %q (and no password)", args, err, tc.want)
		}
		if s != nil {
			s.Close()
		}
	}
}
