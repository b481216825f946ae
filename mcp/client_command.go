package mcp

import (
	"context"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// CommandGrace is how long closing a session with a command waits for
// the command to exit after its input is closed, and again after SIGTERM,
// before it kills it (the stdio transport's shutdown).
const CommandGrace = 5 * time.Second

// ConnectCommand starts cmd (its stdin and stdout must be unset) and
// connects to the MCP server it runs over stdio. Closing the session
// closes the command's input, waits for it to exit, then sends SIGTERM,
// then kills it, CommandGrace apart.
func (c *Client) ConnectCommand(ctx context.Context, cmd *exec.Cmd) (*ClientSession, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		stdin.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	cs := &commandStream{cmd: cmd, in: stdin, out: stdout, exited: make(chan struct{})}
	go func() {
		cs.waitErr = cmd.Wait()
		close(cs.exited)
	}()
	return c.ConnectIO(ctx, cs)
}

// commandStream is a command's stdout and stdin as one stream.
type commandStream struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     io.ReadCloser
	exited  chan struct{}
	waitErr error
}

func (s *commandStream) Read(p []byte) (int, error)  { return s.out.Read(p) }
func (s *commandStream) Write(p []byte) (int, error) { return s.in.Write(p) }

// Close ends the command: input closed, then SIGTERM, then kill.
func (s *commandStream) Close() error {
	s.in.Close()
	for _, sig := range []os.Signal{nil, syscall.SIGTERM, os.Kill} {
		if sig != nil && s.cmd.Process != nil {
			_ = s.cmd.Process.Signal(sig)
		}
		select {
		case <-s.exited:
			return nil
		case <-time.After(CommandGrace):
		}
	}
	<-s.exited
	return nil
}
