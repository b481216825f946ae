package demoserver

import (
	"fmt"
	"os/exec"
	"testing"

	"github.com/mcpwire/mcpwire/internal/testproc"
)

// startListening starts bin with args and returns once it logs the address
// it listens on ("listening addr=tcp://127.0.0.1:PORT"), as a URL, with
// the process and what it logged.
func startListening(t *testing.T, bin string, args ...string) (cmd *exec.Cmd, addr string, logs fmt.Stringer) {
	t.Helper()
	cmd, found, logs := startLogging(t, bin, []string{"addr"}, args...)
	return cmd, found["addr"], logs
}

// startLogging starts bin with args and returns once it has logged a value
// for every key of keys ("key=VALUE"), each the first logged, with the
// process and what it logged.
func startLogging(t *testing.T, bin string, keys []string, args ...string) (cmd *exec.Cmd, found map[string]string, logs fmt.Stringer) {
	t.Helper()
	p := testproc.Start(t, bin, args, keys...)
	found = map[string]string{}
	for _, k := range keys {
		found[k] = p.Value(k)
	}
	return p.Cmd(), found, p
}

// startMetered starts the built demo server on TCP loopback with its
// metrics on loopback too, plus args; it returns the server's address and
// the metrics' URL.
func startMetered(t *testing.T, args ...string) (addr, metricsURL string, logs fmt.Stringer) {
	t.Helper()
	args = append([]string{"-listen", "tcp://127.0.0.1:0", "-metrics", "127.0.0.1:0"}, args...)
	_, found, logs := startLogging(t, build(t), []string{"addr", "metrics"}, args...)
	return found["addr"], found["metrics"], logs
}
