package redisstore

import (
	"testing"

	"go.uber.org/goleak"
)

// ants (under pool, which mcp imports) starts goroutines when loaded:
// ignore what runs before the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m, goleak.IgnoreCurrent()) }
