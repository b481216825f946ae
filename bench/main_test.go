package bench

import (
	"testing"

	"go.uber.org/goleak"
)

// Every implementation's stop must end what its start began. ants (under
// mcpwire's pool) starts goroutines when loaded: what runs before the
// tests is ignored.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent())
}
