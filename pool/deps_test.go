package pool_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps: pool imports no other package of the project (DESIGN.md §2).
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/mcpwire/mcpwire/") && dep != "github.com/mcpwire/mcpwire/pool" {
			t.Errorf("pool imports %s", dep)
		}
	}
}
