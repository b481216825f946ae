package nodetest

import (
	"os"
	"path/filepath"
	"testing"
)

// missing is true until every dependency package.json names is
// installed: an interop folder installed before a package was pinned
// beside the others is installed again.
func TestMissing_everyDependencyOfPackageJSON(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !missing(dir) {
		t.Fatal("no package.json: want missing")
	}
	write("package.json", `{"dependencies":{"@scope/a":"1.0.0","b-next":"npm:b@2.0.0"}}`)
	write("node_modules/@scope/a/package.json", `{}`)
	if !missing(dir) {
		t.Fatal("b-next is not installed: want missing")
	}
	write("node_modules/b-next/package.json", `{}`)
	if missing(dir) {
		t.Fatal("every dependency is installed: want none missing")
	}
}
