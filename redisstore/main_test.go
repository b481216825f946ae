package redisstore

import (
	"testing"

	"go.uber.org/goleak"
)

// IgnoreCurrent: package conn starts its shared pool's goroutines when it
// is initialised, before any test (the end-to-end tests import it).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m, goleak.IgnoreCurrent()) }
