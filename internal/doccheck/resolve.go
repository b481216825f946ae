package doccheck

import (
	"bufio"
	"bytes"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Resolver answers whether the target of a Ref exists. It is not safe
// for concurrent use.
type Resolver struct {
	root    string            // repository root
	exports map[string]string // import path → export data file
	names   map[string]string // package name → import path, the module's packages
	imp     types.Importer    // reads export data
	pkgs    map[string]*types.Package
	bases   map[string]bool // file names in the repository, made on first use
}

// NewResolver prepares a Resolver for the repository at root, whose Go
// module (root/go.mod) it builds with go list -export to read the API of
// every package the module uses.
func NewResolver(root string) (*Resolver, error) {
	cmd := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Name}}\t{{.Export}}\t{{.Module}}", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %v\n%s", err, stderr.Bytes())
	}
	r := &Resolver{root: root, exports: map[string]string{}, names: map[string]string{}, pkgs: map[string]*types.Package{}}
	module, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 4 || f[2] == "" {
			continue
		}
		r.exports[f[0]] = f[2]
		if strings.HasPrefix(f[3], module) && f[1] != "main" {
			if _, dup := r.names[f[1]]; dup {
				r.names[f[1]] = "" // two packages by one name: ambiguous
			} else {
				r.names[f[1]] = f[0]
			}
		}
	}
	for n, p := range r.names {
		if p == "" {
			delete(r.names, n)
		}
	}
	r.imp = importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		f, ok := r.exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	return r, nil
}

// ModulePackages maps the names of the module's packages (package main
// aside, and names two packages share left out) to their import paths.
func (r *Resolver) ModulePackages() map[string]string { return r.names }

// modulePath reads the module line of a go.mod file.
func modulePath(gomod string) (string, error) {
	b, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
			return strings.TrimSpace(m), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", gomod)
}

// Problem returns what is wrong with ref: "" when its target exists or
// when it cannot be checked (a package the module does not build, a path
// whose first element exists nowhere).
func (r *Resolver) Problem(ref Ref) string {
	switch ref.Kind {
	case Path:
		return r.pathProblem(ref)
	case Link:
		p := filepath.Join(r.root, filepath.Dir(ref.File), filepath.FromSlash(ref.Text))
		if _, err := os.Stat(p); err != nil {
			return "links to " + ref.Text + ", which does not exist"
		}
		return ""
	default:
		return r.identProblem(ref)
	}
}

// pathProblem looks ref.Text up beside the citing file, at the root of
// the citing file's module and at the repository root. A path with
// directories is checked only if its first element exists in one of
// those places; a bare file name only beside the citing file.
func (r *Resolver) pathProblem(ref Ref) string {
	dir := filepath.Join(r.root, filepath.Dir(ref.File))
	bases := []string{dir, moduleRoot(r.root, dir), r.root}
	text := strings.TrimSuffix(ref.Text, "/")
	first, _, nested := strings.Cut(text, "/")
	if nested {
		candidate := false
		for _, b := range bases {
			if exists(filepath.Join(b, first)) {
				candidate = true
			}
		}
		if !candidate {
			return ""
		}
	} else {
		bases = bases[:1]
	}
	for _, b := range bases {
		matches, _ := filepath.Glob(filepath.Join(b, filepath.FromSlash(text)))
		if len(matches) > 0 {
			return ""
		}
	}
	if !nested && outside[text] {
		return ""
	}
	if !nested {
		// A bare name may name a file of the repository root or of the
		// module root (README.md, go.mod) too, or a file of another
		// directory whose name the prose gives ("mcp's schema_fast.go"):
		// it is stale only when no file of the repository has that name.
		for _, b := range []string{moduleRoot(r.root, dir), r.root} {
			if exists(filepath.Join(b, text)) {
				return ""
			}
		}
		if r.baseNames()[text] {
			return ""
		}
	}
	return "cites " + ref.Text + ", which does not exist"
}

// baseNames returns the names of the repository's files, dependencies
// and hidden directories aside, read once.
func (r *Resolver) baseNames() map[string]bool {
	if r.bases != nil {
		return r.bases
	}
	r.bases = map[string]bool{}
	_ = filepath.WalkDir(r.root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != r.root && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		r.bases[d.Name()] = true
		return nil
	})
	return r.bases
}

// outside are the project's documents kept beside the repository rather
// than in it (the design and the style guide): code may cite them.
var outside = map[string]bool{"DESIGN.md": true, "STYLE.md": true}

// moduleRoot is the nearest directory from dir up to root holding a
// go.mod, or root.
func moduleRoot(root, dir string) string {
	for d := dir; len(d) >= len(root); d = filepath.Dir(d) {
		if exists(filepath.Join(d, "go.mod")) {
			return d
		}
		if d == root {
			break
		}
	}
	return root
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func (r *Resolver) identProblem(ref Ref) string {
	parts := strings.Split(ref.Text, ".")
	pkgPath := ref.Pkg
	if pkgPath == "" {
		pkgPath = r.names[parts[0]]
	}
	if pkgPath == "" {
		return "" // not a package of the module: out of scope
	}
	pkg := r.load(pkgPath)
	if pkg == nil {
		return ""
	}
	if !isExported(parts[0]) {
		parts = parts[1:] // the package's name
	}
	obj := pkg.Scope().Lookup(parts[0])
	if obj == nil && len(parts) == 1 && strings.HasSuffix(parts[0], "s") {
		obj = pkg.Scope().Lookup(strings.TrimSuffix(parts[0], "s")) // a plural in prose: conn.Streams
	}
	if obj == nil || !obj.Exported() {
		return fmt.Sprintf("cites %s, but package %s has no %s", ref.Text, pkgPath, parts[0])
	}
	if len(parts) == 1 {
		return ""
	}
	if m, _, _ := types.LookupFieldOrMethod(obj.Type(), true, pkg, parts[1]); m == nil {
		return fmt.Sprintf("cites %s, but %s.%s has no field or method %s", ref.Text, pkg.Name(), parts[0], parts[1])
	}
	return ""
}

// load returns the package at path from its export data, or nil.
func (r *Resolver) load(path string) *types.Package {
	if p, ok := r.pkgs[path]; ok {
		return p
	}
	p, err := r.imp.Import(path)
	if err != nil {
		p = nil
	}
	r.pkgs[path] = p
	return p
}
