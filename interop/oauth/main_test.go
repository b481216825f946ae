package oauthinterop_test

import (
	"testing"

	"go.uber.org/goleak"
)

// The verifiers' key refresh stops at Close and the servers at their
// tests' end: none may be left behind. What runs before the tests (ants'
// default pool, started when mcpwire's middleware is imported) is not
// ours.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m, goleak.IgnoreCurrent()) }
