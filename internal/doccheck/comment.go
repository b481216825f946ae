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
var docLinkRE = regexp.MustCompile(`\[\*?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*){0,2})\]`)

// docLinks returns the texts of the doc links of line l: the matches of
// docLinkRE not preceded by a word character, a bracket or a dot, and not
// followed by an opening parenthesis or bracket or a colon.
func docLinks(l string) []string {
	var links []string
	for _, m := range docLinkRE.FindAllStringSubmatchIndex(l, -1) {
		if m[0] > 0 {
			if c := l[m[0]-1]; c == '_' || c == '.' || c == '[' || c == ']' || isAlnum(c) {
				continue
			}
		}
		if m[1] < len(l) {
			if c := l[m[1]]; c == '(' || c == '[' || c == ':' {
				continue
			}
		}
		links = append(links, l[m[2]:m[3]])
	}
	return links
}

// prose returns l with its code spans and bracketed names blanked out,
// offsets unchanged, so that what they cite is not counted twice.
func prose(l string) string {
	b := []byte(l)
	for _, sp := range codeSpans(l) {
		for i := sp[0]; i < sp[1]; i++ {
			b[i] = ' '
		}
	}
	for _, m := range docLinkRE.FindAllStringIndex(l, -1) {
		for i := m[0]; i < m[1]; i++ {
			b[i] = ' '
		}
	}
	return string(b)
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// fileRE matches a file name ending in .go, .md or .sh, with or without
// directories, where it starts a word.
var fileRE = regexp.MustCompile(`(?:^|[\s(\x60"'])((?:\.\.?/)*(?:[\w-][\w.-]*/)*[\w-][\w.-]*\.(?:go|md|sh))(?:[^\w/]|$)`)

// plainIdentRE matches pkg.Name or pkg.Name.Member written as plain text.
var plainIdentRE = regexp.MustCompile(`([a-z][a-z0-9]*)\.([A-Z]\w*)(?:\.([A-Z]\w*))?`)

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
	// Prose is true when identifiers written as plain text (pkg.Name
	// outside code spans and doc links) are to be checked too: in the
	// module's own files, where a package name is one of ours; not in
	// other modules' (bench), whose prose names the peers' packages.
	Prose bool
	// Locals are the names the file declares (variables, parameters,
	// fields): a variable named like a package (a net.Conn called conn)
	// makes its methods look like the package's names in prose, so a name
	// both local and not imported is not read as a package there.
	Locals map[string]bool
}

// LocalsOf returns the names f declares as variables, constants,
// parameters, results and fields.
func LocalsOf(f *ast.File) map[string]bool {
	m := map[string]bool{}
	add := func(ids ...*ast.Ident) {
		for _, id := range ids {
			if id != nil {
				m[id.Name] = true
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			add(n.Names...)
		case *ast.ValueSpec:
			add(n.Names...)
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, e := range n.Lhs {
					if id, ok := e.(*ast.Ident); ok {
						add(id)
					}
				}
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if id, ok := e.(*ast.Ident); ok {
						add(id)
					}
				}
			}
		}
		return true
	})
	return m
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
	for _, text := range docLinks(l) {
		if r, ok := docLink(gf, text, modulePkgs); ok {
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
		if p, ok := gf.Imports[m[1]]; ok {
			refs = append(refs, Ref{File: gf.Path, Line: line, Kind: Ident, Text: joinIdent(m[1], m[2], m[3]), Pkg: p, Imported: true})
		} else if p, ok := modulePkgs[m[1]]; ok {
			refs = append(refs, Ref{File: gf.Path, Line: line, Kind: Ident, Text: joinIdent(m[1], m[2], m[3]), Pkg: p})
		}
	}
	for _, m := range plainIdentRE.FindAllStringSubmatchIndex(prose(l), -1) {
		if !gf.Prose {
			break
		}
		pkg := l[m[2]:m[3]]
		if m[2] > 0 && (l[m[2]-1] == '.' || l[m[2]-1] == '_' || l[m[2]-1] == '/' || isAlnum(l[m[2]-1])) {
			continue
		}
		p, imported := gf.Imports[pkg]
		if !imported {
			if gf.Locals[pkg] {
				continue
			}
			var ok bool
			if p, ok = modulePkgs[pkg]; !ok {
				continue
			}
		}
		member := ""
		if m[6] >= 0 {
			member = l[m[6]:m[7]]
		}
		refs = append(refs, Ref{File: gf.Path, Line: line, Kind: Ident, Text: joinIdent(pkg, l[m[4]:m[5]], member), Pkg: p, Imported: imported})
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
