package doccheck

import (
	"go/parser"
	"go/token"
	"slices"
	"testing"
)

func texts(refs []Ref) []string {
	var s []string
	for _, r := range refs {
		s = append(s, r.Text)
	}
	return s
}

func TestMarkdownRefs_findsPathsIdentsAndLinks(t *testing.T) {
	page := "# T\n\nSee `conn/lead.go` and `pool.Options.Workers`,\n" +
		"`&router.MethodOptions{Inline: true}`, `router.Func[P, R](f)`, [x](docs/a.md#b).\n" +
		"Not `-c N`, `/mcp`, `http://x/y`, `go test ./...`, `<pkg>/testdata`, `json.Valid`? " +
		"(json.Valid is an ident of no module package: found, then left to the resolver.)\n\n" +
		"    $ go run ./cmd/nosuch/x.go\n\n```go\nconn/fenced.go\n`conn/fenced.go`\n```\n[u](https://e.com/a.md)\n" +
		"## Changelog\n\n### Unreleased\n\n- `mcp.Gone` moved to `streamable.Gone`.\n\n## License\n\n`conn/after.go`\n"
	refs := MarkdownRefs("README.md", page)
	want := []string{"conn/lead.go", "pool.Options.Workers", "router.MethodOptions", "router.Func", "json.Valid", "conn/after.go", "docs/a.md"}
	if got := texts(refs); !slices.Equal(got, want) {
		t.Fatalf("refs = %q, want %q", got, want)
	}
	if refs[0].Line != 3 || refs[0].Kind != Path || refs[1].Kind != Ident || refs[6].Kind != Link || refs[6].Line != 4 || refs[5].Line != 22 {
		t.Fatalf("lines or kinds wrong: %+v", refs)
	}
}

func TestCommentRefs_findsLinksSpansAndFiles(t *testing.T) {
	src := `package p

import "io"

// F reads [io.Reader] into [Buf.Len] [pool.Options.Workers]; see
// conn/lead.go and (open.go), but not buf[i], [N], [a-z] nor [link](x).
// ` + "`router.Entry.Intercepted`" + ` counts, as pool.Pool.Running does in
// prose, and io.EOF (an import) too, but not x.pool.Y, pkg/pool.Z nor
// router.Close, router being a variable here.
func F() { router := 1; _ = router }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	gf := GoFile{Path: "x/p.go", Pkg: "example.com/x", Imports: ImportsOf(f), Locals: LocalsOf(f), Prose: true}
	mod := map[string]string{"pool": "example.com/pool", "router": "example.com/router"}
	refs := CommentRefs(gf, fset, f, mod)
	want := []string{
		"io.Reader", "Buf.Len", "pool.Options.Workers", "conn/lead.go", "open.go",
		"router.Entry.Intercepted", "pool.Pool.Running", "io.EOF",
	}
	if got := texts(refs); !slices.Equal(got, want) {
		t.Fatalf("refs = %q, want %q", got, want)
	}
	if refs[0].Pkg != "io" || !refs[0].Imported || refs[1].Pkg != "example.com/x" || refs[2].Pkg != "example.com/pool" || refs[5].Line != 7 || refs[6].Line != 7 || !refs[7].Imported {
		t.Fatalf("packages or lines wrong: %+v", refs)
	}
	gf.Prose = false // another module's file: its prose may name a peer's package
	want = []string{"io.Reader", "Buf.Len", "pool.Options.Workers", "conn/lead.go", "open.go", "router.Entry.Intercepted"}
	if got := texts(CommentRefs(gf, fset, f, mod)); !slices.Equal(got, want) {
		t.Fatalf("without prose: refs = %q, want %q", got, want)
	}
}

// TestResolver_reportsWhatIsStale: the resolver tells a citation of
// something that exists from one of something that does not, for each
// kind, on this repository.
func TestResolver_reportsWhatIsStale(t *testing.T) {
	r, err := NewResolver(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ref   Ref
		stale bool
	}{
		{Ref{File: "README.md", Kind: Path, Text: "internal/doccheck/doc.go"}, false},
		{Ref{File: "README.md", Kind: Path, Text: "internal/doccheck/nosuch.go"}, true},
		{Ref{File: "README.md", Kind: Path, Text: "cmd/loadgen/"}, false},
		{Ref{File: "README.md", Kind: Path, Text: "nosuchdir/a.go"}, false}, // not ours to judge
		{Ref{File: "internal/doccheck/doc.go", Kind: Path, Text: "ref.go"}, false},
		{Ref{File: "internal/doccheck/doc.go", Kind: Path, Text: "open.go"}, true},
		{Ref{File: "internal/doccheck/doc.go", Kind: Path, Text: "scan.go"}, false}, // codec's, named in prose
		{Ref{File: "README.md", Kind: Link, Text: "internal/doccheck/doc.go"}, false},
		{Ref{File: "README.md", Kind: Link, Text: "docs/nosuch.md"}, true},
		{Ref{File: "README.md", Kind: Ident, Text: "pool.Options.Workers"}, false},
		{Ref{File: "README.md", Kind: Ident, Text: "pool.Options.NoSuch"}, true},
		{Ref{File: "README.md", Kind: Ident, Text: "pool.NoSuch"}, true},
		{Ref{File: "README.md", Kind: Ident, Text: "conn.Conn.ServeBody"}, false}, // a method
		{Ref{File: "README.md", Kind: Ident, Text: "conn.Streams"}, false},        // a plural in prose
		{Ref{File: "README.md", Kind: Ident, Text: "conn.Nopes"}, true},
		{Ref{File: "README.md", Kind: Ident, Text: "json.Valid"}, false}, // not a module package
		{Ref{File: "x.go", Kind: Ident, Text: "io.Reader", Pkg: "io", Imported: true}, false},
		{Ref{File: "x.go", Kind: Ident, Text: "io.NoSuch", Pkg: "io", Imported: true}, true},
	} {
		if p := r.Problem(tc.ref); (p != "") != tc.stale {
			t.Errorf("Problem(%s) = %q; want stale %v", tc.ref, p, tc.stale)
		}
	}
}
