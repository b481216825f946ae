package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/bench/echo"
)

const (
	request = `{"jsonrpc":"2.0","id":7,"method":"test_echo","params":["hi \"there\""]}` + "\n"
	answer  = `"hi \"there\""`
)

// TestStdio serves each implementation over a pipe pair: one request
// answered, and run returns once the input ends.
func TestStdio(t *testing.T) {
	for _, name := range echo.Names {
		t.Run(name, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			go func() { done <- run(context.Background(), []string{"-impl", name}, inR, outW, io.Discard) }()
			go io.WriteString(inW, request)
			checkAnswer(t, bufio.NewReader(outR))
			inW.Close()
			go io.Copy(io.Discard, outR) // whatever a server writes at its end
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("run did not return after stdin ended")
			}
		})
	}
}

// TestTCP serves each implementation on a loopback port: two connections,
// one request each; cancelling the context ends run.
func TestTCP(t *testing.T) {
	for _, name := range echo.Names {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			errR, errW := io.Pipe()
			done := make(chan error, 1)
			go func() { done <- run(ctx, []string{"-impl", name, "-listen", "tcp://127.0.0.1:0"}, nil, nil, errW) }()
			line, err := bufio.NewReader(errR).ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			addr := strings.TrimSpace(strings.TrimPrefix(line, "listening on tcp://"))
			for range 2 {
				nc, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				io.WriteString(nc, request)
				checkAnswer(t, bufio.NewReader(nc))
				nc.Close()
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestUnknownImpl(t *testing.T) {
	if err := run(context.Background(), []string{"-impl", "nope"}, nil, nil, io.Discard); err == nil {
		t.Fatal("no error for an unknown -impl")
	}
}

// checkAnswer reads one line and checks it answers request.
func checkAnswer(t *testing.T, r *bufio.Reader) {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(line, `"id":7`) || !strings.Contains(line, `"result":`+answer) {
		t.Fatalf("answer %q", line)
	}
}
