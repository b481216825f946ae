package router_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps: router imports codec and nothing else of the project
// (DESIGN.md §2).
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch dep {
		case "github.com/mcpwire/mcpwire/router", "github.com/mcpwire/mcpwire/codec":
		default:
			if strings.HasPrefix(dep, "github.com/mcpwire/mcpwire/") {
				t.Errorf("router imports %s", dep)
			}
		}
	}
}
