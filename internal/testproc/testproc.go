// Package testproc runs this module's commands for tests: it builds a
// command once into a temporary directory, starts it, reads its log
// (standard error, key=value lines as log/slog writes them) until it has
// said what the test needs, such as the address it listens on, and kills
// it when the test ends. It also runs headless Chromium on a page
// (Chromium), and has a buffer one goroutine writes while another reads
// (LockedBuffer).
package testproc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Build builds the main package pkg (an import path) into a new
// temporary directory and returns the program's path, and a function
// that removes the directory. It builds in pkg's own module, with that
// module's go.sum: a test of another module (interop/oauth's, which
// requires this one through a replace) needs no checksum of what only the
// command imports.
func Build(pkg string) (bin string, remove func(), err error) {
	dir, err := os.MkdirTemp("", "testproc")
	if err != nil {
		return "", nil, err
	}
	bin = filepath.Join(dir, filepath.Base(pkg))
	build := exec.Command("go", "build", "-o", bin, pkg)
	if mod, err := exec.Command("go", "list", "-e", "-f", "{{if .Module}}{{.Module.Dir}}{{end}}", pkg).Output(); err == nil {
		build.Dir = strings.TrimSpace(string(mod))
	}
	if out, err := build.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}

// Process is a program started by Start. Safe for concurrent use.
type Process struct {
	cmd    *exec.Cmd
	values map[string]string // what it logged, by key; set by Start
	done   chan struct{}     // closed once its standard error has ended
	mu     sync.Mutex
	log    bytes.Buffer
}

// Start starts bin with args and returns once its log has given a value
// for each of keys (" addr=tcp://…" gives addr); the test fails if the
// log ends first. It is killed when the test ends, and what it logged is
// shown if the test failed.
func Start(t testing.TB, bin string, args []string, keys ...string) *Process {
	t.Helper()
	p := &Process{cmd: exec.Command(bin, args...), values: map[string]string{}, done: make(chan struct{})}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			t.Logf("%s %v said:\n%s", filepath.Base(bin), args, p)
		}
	})
	br := bufio.NewReader(stderr)
	for len(p.values) < len(keys) {
		line, err := br.ReadString('\n')
		p.log.WriteString(line)
		if err != nil {
			close(p.done)
			t.Fatalf("%s %v did not log %q: %v\n%s", filepath.Base(bin), args, keys, err, p.log.String())
		}
		for _, k := range keys {
			if _, v, ok := strings.Cut(line, " "+k+"="); ok && p.values[k] == "" {
				p.values[k], _, _ = strings.Cut(strings.TrimSpace(v), " ")
			}
		}
	}
	go func() {
		defer close(p.done)
		io.Copy(p, br)
	}()
	return p
}

// Value returns what the process logged for key, one of Start's keys.
func (p *Process) Value(key string) string { return p.values[key] }

func (p *Process) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.Write(b)
}

// Cmd is the process's command, to signal it or wait for it.
func (p *Process) Cmd() *exec.Cmd { return p.cmd }

// String returns what the process has logged so far.
func (p *Process) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// stopGrace bounds Stop's wait for the process to end.
const stopGrace = 30 * time.Second

// Stop sends sig to the process and waits until it has exited and its
// log has ended, so that String then holds everything it logged; it
// returns how it ended (nil: exit status 0). A process still running
// stopGrace after sig is killed.
func (p *Process) Stop(sig os.Signal) error {
	if p.cmd.ProcessState != nil {
		return errors.New("the process had already ended: " + p.cmd.ProcessState.String())
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		return err
	}
	kill := time.AfterFunc(stopGrace, func() { p.cmd.Process.Kill() })
	defer kill.Stop()
	<-p.done
	return p.cmd.Wait()
}

// Kill kills the process (SIGKILL: no clean shutdown) and reaps it. It
// may be called more than once.
func (p *Process) Kill() {
	if p.cmd.ProcessState != nil {
		return
	}
	p.cmd.Process.Kill()
	<-p.done
	p.cmd.Wait()
}
