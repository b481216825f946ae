package demoserver

import (
	"bufio"
	"bytes"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// startListening starts bin with args and returns once it logs the address
// it listens on ("listening addr=tcp://127.0.0.1:PORT"), as a URL. The rest
// of its log goes to logs.
func startListening(t *testing.T, bin string, args ...string) (cmd *exec.Cmd, addr string, logs *lockedBuffer) {
	t.Helper()
	cmd, found, logs := startLogging(t, bin, []string{"addr"}, args...)
	return cmd, found["addr"], logs
}

// startLogging starts bin with args and returns once it has logged a value
// for every key of keys ("key=VALUE"), each the first logged. The rest of
// its log goes to logs.
func startLogging(t *testing.T, bin string, keys []string, args ...string) (cmd *exec.Cmd, found map[string]string, logs *lockedBuffer) {
	t.Helper()
	cmd = exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	sc := bufio.NewScanner(stderr)
	var lines []string
	found = map[string]string{}
	for sc.Scan() {
		lines = append(lines, sc.Text())
		for _, k := range keys {
			if _, a, ok := strings.Cut(" "+sc.Text(), " "+k+"="); ok && found[k] == "" {
				found[k], _, _ = strings.Cut(a, " ")
			}
		}
		if len(found) == len(keys) {
			logs = new(lockedBuffer)
			logs.Write([]byte(strings.Join(lines, "\n") + "\n"))
			go io.Copy(logs, stderr)
			return cmd, found, logs
		}
	}
	cmd.Wait()
	t.Fatalf("%v logged no %v; it said:\n%s", args, keys, strings.Join(lines, "\n"))
	return nil, nil, nil
}

// startMetered starts the built demo server on TCP loopback with its
// metrics on loopback too, plus args; it returns the server's address and
// the metrics' URL.
func startMetered(t *testing.T, args ...string) (addr, metricsURL string, logs *lockedBuffer) {
	t.Helper()
	args = append([]string{"-listen", "tcp://127.0.0.1:0", "-metrics", "127.0.0.1:0"}, args...)
	_, found, logs := startLogging(t, build(t), []string{"addr", "metrics"}, args...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("demoserver's stderr:\n%s", logs)
		}
	})
	return found["addr"], found["metrics"], logs
}

// lockedBuffer is written by one goroutine and read by another.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
