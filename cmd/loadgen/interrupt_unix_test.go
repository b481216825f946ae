//go:build unix

package main

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// TestNotifyInterrupts_SIGINT: Ctrl-C as the process receives it, twice.
func TestNotifyInterrupts_SIGINT(t *testing.T) {
	stop, abort, release := notifyInterrupts()
	defer release()
	wait := func(ch <-chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(30 * time.Second):
			t.Fatalf("SIGINT did not %s", what)
		}
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	wait(stop.Done(), "end stop")
	select {
	case <-abort:
		t.Fatal("abort closed by the first SIGINT")
	default:
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	wait(abort, "close abort")
}
