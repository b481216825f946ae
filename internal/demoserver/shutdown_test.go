package demoserver

import (
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestDemoserver_exitsByItsShutdownDeadlineWhenThePeerNeverReads: a peer
// pipelines requests and reads nothing, so the server's output is stuck;
// SIGTERM still ends the process by its shutdown deadline, cleanly.
func TestDemoserver_exitsByItsShutdownDeadlineWhenThePeerNeverReads(t *testing.T) {
	bin := build(t)
	cmd, addr, logged := startListening(t, bin, "-listen", "tcp://127.0.0.1:0", "-shutdown-timeout", "1s")
	nc, err := net.DialTimeout("tcp", strings.TrimPrefix(addr, "tcp://"), 5*time.Second)
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
	terminate(t, cmd, logged)
	if took := time.Since(start); took > 2500*time.Millisecond {
		t.Fatalf("exited %v after SIGTERM with a 1s shutdown deadline", took)
	}
}
