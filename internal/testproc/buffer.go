package testproc

import (
	"bytes"
	"sync"
)

// LockedBuffer is a bytes.Buffer that one goroutine writes (a process's
// standard error, a logger) while another reads it. Safe for concurrent
// use.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what has been written so far.
func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
