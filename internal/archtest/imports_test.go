// Package archtest checks the direction of imports between the project's
// packages (DESIGN.md §2): a package imports only packages listed above it.
package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/mcpwire/mcpwire"

// allowed lists, for each package, the project packages it may import.
var allowed = map[string][]string{
	"codec":          {},
	"pool":           {},
	"router":         {"codec"},
	"cache":          {"codec"},
	"conn":           {"codec", "router", "pool", "cache"},
	"transport":      {"conn", "codec", "router", "pool", "cache"},
	"mcp":            {"conn", "router", "codec", "transport", "pool", "cache"},
	"cmd/demoserver": {"*"},
	"cmd/loadgen":    {"*"},
	"fuzz":           {"*"},
}

func TestImports_followTheDesign(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/")
		if strings.HasPrefix(pkg, "internal/") {
			continue
		}
		ok, known := allowed[pkg]
		if !known {
			t.Errorf("package %s is not in DESIGN.md §2's table", pkg)
			continue
		}
		if len(ok) == 1 && ok[0] == "*" {
			continue
		}
		for _, dep := range fields[1:] {
			rest, found := strings.CutPrefix(dep, module+"/")
			if !found || strings.HasPrefix(rest, "internal/") {
				continue
			}
			if !contains(ok, rest) {
				t.Errorf("%s imports %s, which DESIGN.md §2 does not allow", pkg, rest)
			}
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
