package oauth_test

import (
	"testing"

	"go.uber.org/goleak"
)

// JWTVerifier refreshes its key set on a goroutine of its own until Close,
// and the tests start HTTP servers: none may be left behind. ants starts
// its default pool's goroutines when imported (through middleware): they
// are not ours.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m, goleak.IgnoreCurrent()) }
