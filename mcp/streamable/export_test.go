package streamable

import (
	"io"
	"time"
)

// SSEReader exposes the event stream reader to the external tests.
type SSEReader struct{ r *sseReader }

// NewSSEReader reads events from r, each up to max bytes of data.
func NewSSEReader(r io.Reader, max int) *SSEReader { return &SSEReader{newSSEReader(r, max)} }

// Next returns the next event's id (the last id as of it), type and data.
func (r *SSEReader) Next() (id, name string, data []byte, err error) {
	ev, err := r.r.Next()
	return ev.ID, ev.Name, ev.Data, err
}

// Retry returns the last retry field read.
func (r *SSEReader) Retry() time.Duration { return r.r.retry }
