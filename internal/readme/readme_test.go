// Package readme checks that README.md stays true to the code: its code
// snippets are the bodies of runnable examples or whole files that tests
// run, and the fuzzing page lists every fuzz target.
// (scripts/readme-commands runs the commands of README.md and docs/;
// internal/doccheck checks the paths and names they cite.)
package readme

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite README.md's snippets from the examples they come from")

const root = "../.."

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// snippetRE matches a marker and the Go code block that follows it; the
// marker names a function, or none for the whole file:
//
//	<!-- snippet: transport/example_test.go Example_embed -->
//	```go
//	…
//	```
var snippetRE = regexp.MustCompile("(?s)<!-- snippet: (\\S+)(?: (\\w+))? -->\n```go\n(.*?)```\n")

// TestReadme_snippetsAreRunnableExamples: each marked snippet is the body
// of the example function it names, without the // Output: comment, or
// the whole file it names when it names no function, which must then have
// tests beside it; so the README shows code that compiles and runs under
// go test. Run with -update to rewrite the README from the sources.
func TestReadme_snippetsAreRunnableExamples(t *testing.T) {
	readme := readFile(t, "README.md")
	matches := snippetRE.FindAllStringSubmatchIndex(readme, -1)
	if len(matches) == 0 {
		t.Fatal("README.md has no <!-- snippet: FILE FUNC --> marker")
	}
	var out strings.Builder
	last := 0
	for _, m := range matches {
		file, got := readme[m[2]:m[3]], readme[m[6]:m[7]]
		var fn, want string
		var err error
		if m[4] < 0 {
			fn = "(whole file)"
			want, err = wholeFile(filepath.Join(root, file))
		} else {
			fn = readme[m[4]:m[5]]
			if !strings.HasPrefix(fn, "Example") {
				t.Errorf("snippet from %s %s: not an example, so nothing runs it", file, fn)
			}
			want, err = funcBody(filepath.Join(root, file), fn)
		}
		if err != nil {
			t.Fatal(err)
		}
		out.WriteString(readme[last:m[6]])
		out.WriteString(want)
		last = m[7]
		if got != want && !*update {
			t.Errorf("README.md's snippet from %s %s differs from the function; run go test ./internal/readme -update\n--- README\n%s--- %s\n%s", file, fn, got, fn, want)
		}
	}
	out.WriteString(readme[last:])
	if *update && out.String() != readme {
		if err := os.WriteFile(filepath.Join(root, "README.md"), []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// wholeFile returns the Go file's text, if the directory holds tests to
// run it.
func wholeFile(file string) (string, error) {
	tests, err := filepath.Glob(filepath.Join(filepath.Dir(file), "*_test.go"))
	if err != nil {
		return "", err
	}
	if len(tests) == 0 {
		return "", fmt.Errorf("%s: no test beside it, so nothing runs it", file)
	}
	b, err := os.ReadFile(file)
	return string(b), err
}

// funcBody returns the statements of the function fn in file, one tab of
// indentation removed, without // Output: comments, ending in a newline.
func funcBody(file, fn string) (string, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	if err != nil {
		return "", err
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != fn || fd.Recv != nil {
			continue
		}
		body := src[fset.Position(fd.Body.Lbrace).Offset+1 : fset.Position(fd.Body.Rbrace).Offset]
		var b strings.Builder
		for _, line := range strings.Split(strings.Trim(string(body), "\n"), "\n") {
			trimmed := strings.TrimSpace(line)
			if strings.HasPrefix(trimmed, "// Output:") || strings.HasPrefix(trimmed, "// Unordered output:") {
				continue
			}
			b.WriteString(strings.TrimPrefix(line, "\t"))
			b.WriteByte('\n')
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("%s: no function %s", file, fn)
}

func TestFuncBody_dropsTheOutputComment(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "x_test.go")
	src := "package x\n\nimport \"fmt\"\n\nfunc Example_x() {\n\tif true {\n\t\tfmt.Println(1)\n\t}\n\t// Output: 1\n}\n"
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := funcBody(file, "Example_x")
	if want := "if true {\n\tfmt.Println(1)\n}\n"; err != nil || got != want {
		t.Fatalf("funcBody = %q, %v; want %q", got, err, want)
	}
	if _, err := funcBody(file, "Example_y"); err == nil {
		t.Fatal("no error for a missing function")
	}
}

func TestReadme_license(t *testing.T) {
	license := readFile(t, "LICENSE")
	if !strings.HasPrefix(license, "MIT License\n") || !regexp.MustCompile(`Copyright \(c\) \d{4} The mcpwire authors\n`).MatchString(license) {
		t.Errorf("LICENSE is not MIT by The mcpwire authors:\n%s", license[:min(len(license), 200)])
	}
	if !strings.Contains(readFile(t, "README.md"), "[LICENSE](LICENSE)") {
		t.Error("README.md does not link LICENSE")
	}
}

// fuzzPage is the page whose table lists the fuzz targets.
const fuzzPage = "docs/fuzzing.md"

// TestReadme_listsEveryFuzzTarget: the fuzzing page's table names each
// fuzz target of the module, and only those, and each has its seed corpus
// directory where the page says.
func TestReadme_listsEveryFuzzTarget(t *testing.T) {
	section := readFile(t, fuzzPage)
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `(Fuzz\\w+)` \\| `([\\w/]+)` \\|").FindAllStringSubmatch(section, -1) {
		listed[m[2]+"."+m[1]] = true
	}
	found := fuzzTargets(t)
	if len(found) == 0 {
		t.Fatal("no fuzz target found in the module")
	}
	for target := range found {
		if !listed[target] {
			t.Errorf("fuzz target %s is not in %s's table", target, fuzzPage)
		}
		pkg, name, _ := strings.Cut(target, ".")
		if fi, err := os.Stat(filepath.Join(root, pkg, "testdata", "fuzz", name)); err != nil || !fi.IsDir() {
			t.Errorf("%s has no seed corpus in %s/testdata/fuzz/%s/", target, pkg, name)
		}
	}
	for target := range listed {
		if !found[target] {
			t.Errorf("%s lists %s, which does not exist", fuzzPage, target)
		}
	}
}

// fuzzTargets returns the module's fuzz targets as "pkg.FuzzX", pkg being
// the directory relative to the module root. Directories with a go.mod of
// their own are other modules and are left out, as is testdata.
func fuzzTargets(t *testing.T) map[string]bool {
	t.Helper()
	found := map[string]bool{}
	re := regexp.MustCompile(`(?m)^func (Fuzz\w*)\(`)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || exists(filepath.Join(path, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			found[filepath.ToSlash(rel)+"."+m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
