package client

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/transport"
)

// addrDialer dials a tcp:// or unix:// address, framing the socket with f.
func addrDialer(addr string, f codec.Framing, l *codec.Limits) (DialFunc, error) {
	network, address, err := transport.ParseAddr(addr)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (conn.Stream, error) {
		var d net.Dialer
		nc, err := d.DialContext(ctx, network, address)
		if err != nil {
			return nil, err
		}
		return conn.NewByteStream(nc, f, l), nil
	}, nil
}

// CommandGrace is how long a session of DialCommand that closes waits for
// its child to exit after closing the child's stdin, before it kills it.
const CommandGrace = 2 * time.Second

// ErrCommandStdio is returned when a command given to DialCommand has its
// Stdin or Stdout set: the client needs both.
var ErrCommandStdio = errors.New("client: the command's Stdin and Stdout must be unset")

// commandDialer starts newCmd's command for each session and speaks over
// its stdin and stdout, framed with f.
func commandDialer(newCmd func() *exec.Cmd, f codec.Framing, l *codec.Limits) DialFunc {
	return func(context.Context) (conn.Stream, error) {
		cmd := newCmd()
		if cmd.Stdin != nil || cmd.Stdout != nil {
			return nil, ErrCommandStdio
		}
		p, err := startProcess(cmd)
		if err != nil {
			return nil, err
		}
		return conn.NewByteStream(p, f, l), nil
	}
}

// process is a running child seen as a byte stream: reads come from its
// stdout, writes go to its stdin. Both are pipes of our own (*os.File), so
// that exec starts no copying goroutine and reads have deadlines.
type process struct {
	cmd  *exec.Cmd
	r    *os.File // our end of its stdout
	w    *os.File // our end of its stdin
	once sync.Once
}

// startProcess starts cmd with its stdin and stdout on new pipes.
func startProcess(cmd *exec.Cmd) (*process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close() // the child has its own copies now
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	return &process{cmd: cmd, r: outR, w: inW}, nil
}

func (p *process) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p *process) Write(b []byte) (int, error) { return p.w.Write(b) }

// SetReadDeadline bounds reads of the child's stdout.
func (p *process) SetReadDeadline(t time.Time) error { return p.r.SetReadDeadline(t) }

// SetWriteDeadline bounds writes to the child's stdin.
func (p *process) SetWriteDeadline(t time.Time) error { return p.w.SetWriteDeadline(t) }

// Close closes the child's stdin (a stdio server exits when it ends) and
// our end of its stdout, waits for it to exit for CommandGrace, then kills
// it. It returns the child's exit error, if any, once it has been reaped.
func (p *process) Close() error {
	var err error
	p.once.Do(func() {
		p.w.Close()
		p.r.Close()
		exited := make(chan error, 1)
		go func() { exited <- p.cmd.Wait() }()
		t := time.NewTimer(CommandGrace)
		defer t.Stop()
		select {
		case err = <-exited:
		case <-t.C:
			p.cmd.Process.Kill()
			err = <-exited
		}
	})
	return err
}
