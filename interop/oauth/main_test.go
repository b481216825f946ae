package oauthinterop_test

import (
	"testing"

	"github.com/mcpwire/mcpwire/internal/testproc"
)

// The verifiers' key refresh stops at Close and the servers at their
// tests' end: none may be left behind (testproc.Main checks with goleak,
// after removing the built demo server). What runs before the tests
// (ants' default pool, started when mcpwire's middleware is imported) is
// not ours.
func TestMain(m *testing.M) { testproc.Main(m, demoBin.Remove) }
