package scaleout

import (
	"testing"

	"github.com/mcpwire/mcpwire/internal/testproc"
)

// demoBin is cmd/demoserver, built once for every test of the package.
var demoBin = testproc.NewBinary("github.com/mcpwire/mcpwire/cmd/demoserver")

// TestMain removes the built command and checks that the tests left no
// goroutine (the proxy's and the clients' connections included).
func TestMain(m *testing.M) { testproc.Main(m, demoBin.Remove) }
