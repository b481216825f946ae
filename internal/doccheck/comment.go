package doccheck

import (
	"go/ast"
	"go/token"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// docLinkRE matches a Go doc link: a name, a name and a member, either
// behind a package name, in square brackets, optionally starred. The
// character before it must not make it an index expression (buf[i]) and
// the one after it must not make it a Markdown link or a link definition.
var docLinkRE = regexp.MustCompile(`(?:^|[^\w\]\[.])\[\*?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*){0,2})\](?:[^(\[:]|$)`)

// fileRE matches a file name ending in .go, .md or .sh, with or without
// directories, where it starts a word.
var fileRE = regexp.MustCompile(`(?:^|[\s(\x60"'])((?:\.\.?/)*(?:[\w-][\w.-]*/)*[\w-][\w.-]*\.(?:go|md|sh))(?:[^\w/]|$)`)

// GoFile describes a Go source file whose comments are scanned.
type GoFile struct {
	Path string // relative to the repository root
	// Pkg is the import path of the file's package, or "" when doc links
	// to the file's own package are not to be checked (package main, an
	// external test package).
	Pkg string
	// Imports maps the names the file imports packages by to their
	// import paths.
	Imports map[string]string
}

// ImportsOf returns the names by which f imports packages, mapped to
// their import paths. An import without a name is known by the last
// element of its path, as go doc assumes.
func ImportsOf(f *ast.File) map[string]string {
	m := map[string]string{}
	for _, is := range f.Imports {
		p, err := strconv.Unquote(is.Path.Value)
		if err != nil {
			continue
		}
		name := path.Base(p)
		if is.Name != nil {
			name = is.Name.Name
		}
		if name == "_" || name == "." {
			continue
		}
		m[name] = p
	}
	return m
}

// CommentRefs returns the doc links, module identifiers in code spans
// and file names that the comments of f cite. modulePkgs maps the
// package names of the module to their import paths.
func CommentRefs(gf GoFile, fset *token.FileSet, f *ast.File, modulePkgs map[string]string) []Ref {
	var refs []Ref
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			first := fset.Position(c.Slash).Line
			for i, l := range strings.Split(c.Text, "\n") {
				refs = append(refs, lineRefs(gf, first+i, l, modulePkgs)...)
			}
		}
	}
	return refs
}

func lineRefs(gf GoFile, line int, l string, modulePkgs map[string]string) []Ref {
	var refs []Ref
	for _, m := range docLinkRE.FindAllStringSubmatch(l, -1) {
		if r, ok := docLink(gf, m[1], modulePkgs); ok {
			r.Line = line
			refs = append(refs, r)
		}
	}
	for _, sp := range codeSpans(l) {
		s := strings.TrimSpace(l[sp[0]:sp[1]])
		m := identRE.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		if p, ok := modulePkgs[m[1]]; ok {
			refs = append(refs, Ref{File: gf.Path, Line: line, Kind: Ident, Text: joinIdent(m[1], m[2], m[3]), Pkg: p})
		}
	}
	for _, m := range fileRE.FindAllStringSubmatch(l, -1) {
		refs = append(refs, Ref{File: gf.Path, Line: line, Kind: Path, Text: strings.TrimPrefix(m[1], "./")})
	}
	return refs
}

// docLink resolves the package of a doc link's text as go doc does: a
// first element that is an exported name is of the comment's own
// package; a lower-case one is a package the file imports, or else a
// package of the module. Links it cannot place are not returned.
func docLink(gf GoFile, text string, modulePkgs map[string]string) (Ref, bool) {
	parts := strings.Split(text, ".")
	r := Ref{File: gf.Path, Kind: Ident, Text: text}
	if isExported(parts[0]) {
		if gf.Pkg == "" || len(parts) > 2 || text == parts[0] && len(text) < 2 {
			return r, false
		}
		if len(parts) == 2 && !isExported(parts[1]) {
			return r, false
		}
		r.Pkg, r.Imported = gf.Pkg, true
		return r, true
	}
	if len(parts) < 2 || !isExported(parts[1]) || (len(parts) == 3 && !isExported(parts[2])) {
		return r, false
	}
	if p, ok := gf.Imports[parts[0]]; ok {
		r.Pkg, r.Imported = p, true
		return r, true
	}
	if p, ok := modulePkgs[parts[0]]; ok {
		r.Pkg = p
		return r, true
	}
	return r, false
}

func isExported(s string) bool { return s != "" && s[0] >= 'A' && s[0] <= 'Z' }
