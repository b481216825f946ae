package redisstore

import (
	"testing"

	"go.uber.org/goleak"
)

// ants starts its default pool's goroutines when imported (the tests
// serve sessions: conn): they are not ours.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m, goleak.IgnoreCurrent()) }
