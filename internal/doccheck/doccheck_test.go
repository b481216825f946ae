package doccheck

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const root = "../.."

// TestDocs_citeWhatExists: every file path and Go identifier that the
// Markdown pages and the Go comments of the repository cite exists. A
// failure names the file, the line and the stale citation.
func TestDocs_citeWhatExists(t *testing.T) {
	r, err := NewResolver(root)
	if err != nil {
		t.Fatal(err)
	}
	refs := repoRefs(t, r.ModulePackages())
	if len(refs) < 100 {
		t.Fatalf("found only %d citations: the scan is broken", len(refs))
	}
	counts := map[Kind]int{}
	for _, ref := range refs {
		counts[ref.Kind]++
		if p := r.Problem(ref); p != "" {
			t.Errorf("%s:%d: %s", ref.File, ref.Line, p)
		}
	}
	t.Logf("checked %d paths, %d identifiers, %d links", counts[Path], counts[Ident], counts[Link])
}

// repoRefs returns the citations of every Markdown page and Go file of
// the repository, test data, dependencies and hidden directories aside.
func repoRefs(t *testing.T, modulePkgs map[string]string) []Ref {
	t.Helper()
	module, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var refs []Ref
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case strings.HasSuffix(name, ".md"):
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			refs = append(refs, MarkdownRefs(rel, string(b))...)
		case strings.HasSuffix(name, ".go"):
			f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
			if err != nil {
				return err
			}
			gf := GoFile{Path: rel, Imports: ImportsOf(f), Locals: LocalsOf(f)}
			dir := filepath.Dir(p)
			gf.Prose = moduleRoot(root, dir) == root
			if gf.Prose && f.Name.Name != "main" && !strings.HasSuffix(f.Name.Name, "_test") {
				relDir := filepath.ToSlash(filepath.Dir(rel))
				gf.Pkg = module
				if relDir != "." {
					gf.Pkg += "/" + relDir
				}
			}
			refs = append(refs, CommentRefs(gf, fset, f, modulePkgs)...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return refs
}
