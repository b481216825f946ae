package doccheck

import "fmt"

// Kind is what a Ref names.
type Kind int

const (
	// Path is a file or directory, relative to the citing file's
	// directory, its module's root or the repository root.
	Path Kind = iota
	// Ident is a Go identifier: pkg.Name or pkg.Name.Member, pkg being
	// a package name; in a Go comment also Name or Name.Member of the
	// comment's own package.
	Ident
	// Link is a Markdown link target, relative to the page.
	Link
)

// Ref is one citation found in a document.
type Ref struct {
	File string // the citing file, relative to the repository root
	Line int    // 1-based line of the citation in File
	Kind Kind
	Text string // the cited path or identifier, as written

	// Pkg is, for an Ident in a Go comment, the import path of the package
	// the first element names (or of the comment's own package when the
	// first element is a Name of it); empty elsewhere.
	Pkg string
	// Imported is true when Pkg comes from an import of the citing file or
	// is the comment's own package: a standard-library or third-party
	// package is then checked too.
	Imported bool
}

func (r Ref) String() string {
	return fmt.Sprintf("%s:%d: %s", r.File, r.Line, r.Text)
}
