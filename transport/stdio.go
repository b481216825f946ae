package transport

import (
	"errors"
	"io"
	"os"
	"time"
)

// Stdio is a stream over a reader and a writer, typically os.Stdin and
// os.Stdout: the stdio transport of MCP. Close closes both ends that are
// io.Closers. When the reader has SetReadDeadline (a pipe), Shutdown can
// interrupt a blocked read.
type Stdio struct {
	R io.Reader
	W io.Writer
}

// NewStdio returns the process's stdin and stdout as one stream.
func NewStdio() *Stdio { return &Stdio{R: os.Stdin, W: os.Stdout} }

// Read reads from R.
func (s *Stdio) Read(p []byte) (int, error) { return s.R.Read(p) }

// Write writes to W.
func (s *Stdio) Write(p []byte) (int, error) { return s.W.Write(p) }

// Close closes R and W where they can be closed.
func (s *Stdio) Close() error {
	var errs []error
	if c, ok := s.R.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	if c, ok := s.W.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// SetReadDeadline sets a deadline on R when R supports one (a pollable
// pipe does; a terminal or a blocking file descriptor does not).
func (s *Stdio) SetReadDeadline(t time.Time) error {
	if d, ok := s.R.(interface{ SetReadDeadline(time.Time) error }); ok {
		return d.SetReadDeadline(t)
	}
	return errors.ErrUnsupported
}
