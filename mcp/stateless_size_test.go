package mcp

import (
	"testing"
	"unsafe"
)

// TestStatelessAlloc_size keeps what a stateless request allocates for
// its session, round, context and result (statelessAlloc) within the
// 384-byte size class it was measured in: every byte past it costs the
// collector on every stateless request.
func TestStatelessAlloc_size(t *testing.T) {
	if n := unsafe.Sizeof(statelessAlloc{}); n > 384 {
		t.Errorf("statelessAlloc is %d bytes; the budget is 384", n)
	}
}
