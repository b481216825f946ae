package metrics_test

import (
	"testing"

	"go.uber.org/goleak"
)

// The tests run sessions, whose goroutines must all have ended; ants
// starts its default pool's goroutines when imported: they are not ours.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m, goleak.IgnoreCurrent()) }
