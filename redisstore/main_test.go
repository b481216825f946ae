package redisstore

import (
	"testing"

	"go.uber.org/goleak"
)

// IgnoreCurrent: the goroutines packages start when imported (the shared
// executor of package pool, which mcp brings in) are not leaks.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m, goleak.IgnoreCurrent()) }
