package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestDemoserver_exitsByItsShutdownDeadlineWhenThePeerNeverReads: a peer
// pipelines requests and reads nothing, so the server's output is stuck;
// SIGTERM still ends the process by its shutdown deadline, cleanly.
func TestDemoserver_exitsByItsShutdownDeadlineWhenThePeerNeverReads(t *testing.T) {
	bin := build(t)
	cmd := exec.Command(bin, "-listen", "tcp://127.0.0.1:0", "-shutdown-timeout", "1s")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	logs := bufio.NewScanner(stderr)
	addr := ""
	for logs.Scan() {
		if _, a, ok := strings.Cut(logs.Text(), "addr=tcp://"); ok {
			addr, _, _ = strings.Cut(a, " ")
			break
		}
	}
	var logged lockedBuffer
	go io.Copy(&logged, stderr)
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()

	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":["` + strings.Repeat("x", 1000) + `"]}` + "\n")
	var sent atomic.Int64
	go func() {
		for range 100_000 {
			if _, err := nc.Write(req); err != nil {
				return
			}
			sent.Add(1)
		}
	}()
	for last := int64(-1); ; last = sent.Load() { // until the server stops reading
		time.Sleep(100 * time.Millisecond)
		if sent.Load() == last {
			break
		}
	}
	start := time.Now()
	terminate(t, cmd, &logged)
	if took := time.Since(start); took > 2500*time.Millisecond {
		t.Fatalf("exited %v after SIGTERM with a 1s shutdown deadline", took)
	}
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
