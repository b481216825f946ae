// Package doccheck finds the file paths and Go identifiers that the
// project's documentation cites and that do not exist, so that a rename
// or a deletion cannot leave the documentation pointing at nothing.
//
// What is checked, and what is left alone so that a report is never a
// false alarm:
//
//   - In Markdown: code spans (`…`) that are a path whose first element
//     exists beside the page or at the repository root (`conn/conn.go`,
//     `bench/run.sh`); code spans that name a package of the module and an
//     exported name in it, optionally a field or method of that name
//     (`pool.Options`, `conn.Options.MaxInFlight`, `router.Func[P, R](…)`);
//     and relative link targets ([text](docs/loadgen.md)). Fenced and
//     indented code blocks are left to the tests that run them.
//   - In Go comments: doc links (a name, a name and a member, each
//     optionally behind a package name, in square brackets), resolved as
//     go doc resolves them: in the comment's package or through the
//     file's imports; one-letter names (placeholders such as N) are left
//     out. Also pkg.Name and pkg.Name.Member written in code spans, and,
//     in the module's own files, in plain text, pkg being a package the
//     file imports or else a package of the module that the file does not
//     also use as a variable's name (a plural, conn.Streams, is read as
//     the singular). Also code spans that
//     name a package of the module as above, and file names ending in
//     .go, .md or .sh, looked up beside the file, at its module's root and
//     at the repository root.
//
// Standard-library and third-party names are checked only where a Go file
// imports the package its doc link names. Paths whose first element
// exists nowhere (another project's file, a URL path such as /mcp) are
// not checked. DESIGN.md and STYLE.md are the project's documents kept
// beside the repository, not in it: citing them is not checked.
//
// Names of its own: a Ref is one citation (where it is, its text, what
// kind of thing it names); a Resolver answers whether a Ref's target
// exists.
package doccheck
