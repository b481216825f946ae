package interop_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// The conformance suites package.json pins: the stable line
// (@modelcontextprotocol/conformance 0.1.16, run with --suite all) and
// 0.2.0-alpha.12 (npm alias conformance-next), which scores what a
// revision of the specification requires (--requirements REV).
const (
	suiteStable = "node_modules/@modelcontextprotocol/conformance/dist/index.js"
	suiteNext   = "node_modules/conformance-next/dist/index.js"
)

// expectedFailuresFile lists, in the suite's --expected-failures format,
// the scenarios of suiteNext that contradict the published
// specification, each with the reason in a comment. Only those: a bug of
// ours is fixed, not listed.
const expectedFailuresFile = "expected-failures.yaml"

// runSuite runs the conformance suite at path (one of the constants
// above) with args and -o, and returns every check it wrote, its output,
// and how it exited. The run is bounded by 10 minutes.
func runSuite(t *testing.T, node, path string, args ...string) ([]check, []byte, error) {
	t.Helper()
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{path}, append(args, "-o", out)...)...)
	report, err := cmd.CombinedOutput()
	return readChecks(t, out), report, err
}

// check is one entry of a scenario's checks.json.
type check struct {
	Name         string `json:"name"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
	scenario     string
}

// failed reports whether c fails its scenario: the suite's runner fails
// on a WARNING as on a FAILURE; SUCCESS, INFO and SKIPPED do not.
func (c check) failed() bool {
	switch c.Status {
	case "SUCCESS", "INFO", "SKIPPED":
		return false
	}
	return true
}

// resultDir matches the folder the suite writes a scenario's checks to:
// the scenario's name (server runs put "server-" before it), then the
// time of the run.
var resultDir = regexp.MustCompile(`^(?:server-)?(.+)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$`)

// readChecks reads every checks.json the suite wrote under dir, each
// check named by its scenario.
func readChecks(t *testing.T, dir string) []check {
	t.Helper()
	var all []check
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "checks.json" {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var cs []check
		if err := json.Unmarshal(b, &cs); err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		if m := resultDir.FindStringSubmatch(rel); m != nil {
			rel = m[1]
		}
		for i := range cs {
			cs[i].scenario = rel
		}
		all = append(all, cs...)
		return nil
	})
	if err != nil {
		t.Fatalf("reading the suite's checks: %v", err)
	}
	return all
}

func scenarios(cs []check) map[string]bool {
	m := map[string]bool{}
	for _, c := range cs {
		m[c.scenario] = true
	}
	return m
}

// listed runs suiteNext's list --requirements rev and returns the
// scenarios it runs for role ("server" or "client"): those the revision
// requires, and those run and reported but not scored.
func listed(t *testing.T, node, rev, role string) []string {
	t.Helper()
	out, err := exec.Command(node, suiteNext, "list", "--requirements", rev).CombinedOutput()
	if err != nil {
		t.Fatalf("conformance list --requirements %s: %v\n%s", rev, err, out)
	}
	names := parseList(out, role)
	if len(names) == 0 {
		t.Fatalf("conformance list --requirements %s names no %s scenario:\n%s", rev, role, out)
	}
	return names
}

// listItem is a scenario line of the list command: "  - name", or
// "    - name [role]" among those not scored.
var listItem = regexp.MustCompile(`^\s+- (\S+)(?: \[(server|client)\])?$`)

// parseList returns the scenarios of role in the list command's output:
// the items under "Server scenarios" or "Client scenarios", and those
// tagged [role] under the ones not scored.
func parseList(out []byte, role string) []string {
	var names []string
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "Server scenarios"):
			section = "server"
		case strings.HasPrefix(line, "Client scenarios"):
			section = "client"
		case strings.HasPrefix(line, "Run and reported"):
			section = "unscored"
		}
		m := listItem.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if r := m[2]; r == role || (r == "" && section == role) {
			names = append(names, m[1])
		}
	}
	return names
}

// expectedFailures reads expectedFailuresFile's scenarios for role.
func expectedFailures(t *testing.T, role string) []string {
	t.Helper()
	b, err := os.ReadFile(expectedFailuresFile)
	if err != nil {
		t.Fatal(err)
	}
	var f map[string][]string
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", expectedFailuresFile, err)
	}
	return f[role]
}

// verdict is what judge made of a run, in scenarios.
type verdict struct{ passed, failed, expected, skipped int }

// judge fails the test naming each failed check of every scenario in
// want, and each scenario of want that wrote no check; scenarios that
// skip reports true are counted as skipped and not judged. A scenario
// listed in expected must fail (it contradicts the specification); once
// it passes, the test fails until it is taken off the list.
func judge(t *testing.T, checks []check, want, expected []string, skip func(string) bool) verdict {
	t.Helper()
	by := map[string][]check{}
	for _, c := range checks {
		by[c.scenario] = append(by[c.scenario], c)
	}
	var v verdict
	for name := range by {
		if !slices.Contains(want, name) {
			t.Errorf("%s: run, but not listed for the revision", name)
		}
	}
	for _, name := range want {
		if skip(name) {
			v.skipped++
			continue
		}
		cs, ok := by[name]
		if !ok {
			t.Errorf("%s: the suite wrote no check", name)
			v.failed++
			continue
		}
		bad := slices.DeleteFunc(slices.Clone(cs), func(c check) bool { return !c.failed() })
		switch {
		case slices.Contains(expected, name) && len(bad) == 0:
			t.Errorf("%s passes: take it off %s", name, expectedFailuresFile)
			v.passed++
		case slices.Contains(expected, name):
			t.Logf("%s fails, as %s expects: %d checks", name, expectedFailuresFile, len(bad))
			v.expected++
		case len(bad) == 0:
			v.passed++
		default:
			v.failed++
			for _, c := range bad {
				t.Errorf("%s: %s %s: %s", name, c.Status, c.Name, c.ErrorMessage)
			}
		}
	}
	return v
}
