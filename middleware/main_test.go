package middleware_test

import (
	"testing"

	"go.uber.org/goleak"
)

// The tests serve sessions (conn), which start goroutines: none may be
// left behind. ants starts its default pool's goroutines when imported:
// they are not ours.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m, goleak.IgnoreCurrent()) }
