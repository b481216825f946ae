package main

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
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if _, a, ok := strings.Cut(sc.Text(), "addr="); ok {
			addr, _, _ = strings.Cut(a, " ")
			logs = new(lockedBuffer)
			go io.Copy(logs, stderr)
			return cmd, addr, logs
		}
	}
	cmd.Wait()
	t.Fatalf("%v logged no address; it said:\n%s", args, strings.Join(lines, "\n"))
	return nil, "", nil
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
