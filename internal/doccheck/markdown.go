package doccheck

import (
	"regexp"
	"strings"
)

// identRE matches a code span that names pkg.Name or pkg.Name.Member,
// written as a reference (`pool.Options.Workers`), a pointer or address
// (`*codec.Error`, `&router.MethodOptions{…}`), a generic instance
// (`router.Func[P, R]`) or a call (`client.Dial(ctx, …)`).
var identRE = regexp.MustCompile(`^[&*]*([a-z][a-z0-9]*)\.([A-Z]\w*)(?:\.([A-Z]\w*))?(?:\[[^\]]*\])?(?:\(.*\)|\{.*\})?$`)

// pathRE matches a code span that is a relative path with at least one
// slash (`conn/conn.go`, `cmd/loadgen/`, `codec/testdata/seeds/*.json`).
var pathRE = regexp.MustCompile(`^(?:\.\.?/)*[\w.-]+(?:/[\w.*-]+)+/?$|^(?:\.\.?/)*[\w.-]+/$`)

// linkRE matches a Markdown inline link and captures its target.
var linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// MarkdownRefs returns the paths, identifiers and relative link targets
// that the Markdown page text cites outside code blocks. file is the
// page's path relative to the repository root, recorded in each Ref.
func MarkdownRefs(file, text string) []Ref {
	var refs []Ref
	prose := blankChangelog(blankCodeBlocks(text))
	line := func(off int) int { return 1 + strings.Count(text[:off], "\n") }
	spans := codeSpans(prose)
	for _, sp := range spans {
		s := strings.TrimSpace(prose[sp[0]:sp[1]])
		switch {
		case identRE.MatchString(s):
			m := identRE.FindStringSubmatch(s)
			refs = append(refs, Ref{File: file, Line: line(sp[0]), Kind: Ident, Text: joinIdent(m[1], m[2], m[3])})
		case pathRE.MatchString(s) && !strings.Contains(s, "...") && strings.Contains(strings.TrimSuffix(strings.TrimPrefix(s, "./"), "/"), "/"):
			refs = append(refs, Ref{File: file, Line: line(sp[0]), Kind: Path, Text: strings.TrimPrefix(s, "./")})
		}
	}
	links := []byte(prose)
	for _, sp := range spans {
		for i := sp[0]; i < sp[1]; i++ {
			links[i] = ' '
		}
	}
	for _, m := range linkRE.FindAllSubmatchIndex(links, -1) {
		target := prose[m[2]:m[3]]
		target, _, _ = strings.Cut(target, "#")
		if target == "" || strings.Contains(target, ":") {
			continue // an anchor on the page, a URL, mailto:
		}
		refs = append(refs, Ref{File: file, Line: line(m[2]), Kind: Link, Text: target})
	}
	return refs
}

func joinIdent(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// blankCodeBlocks returns text with the lines of fenced code blocks and
// of indented code blocks (four spaces or a tab after a blank line)
// replaced by empty lines, so offsets and line numbers stay those of text.
func blankCodeBlocks(text string) string {
	lines := strings.SplitAfter(text, "\n")
	fence := ""
	indented := false
	prevBlank := true
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			lines[i] = blankLine(l)
			continue
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
			lines[i] = blankLine(l)
			continue
		}
		isIndented := strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t")
		if trimmed != "" && isIndented && (prevBlank || indented) {
			indented = true
			lines[i] = blankLine(l)
			continue
		}
		if trimmed != "" {
			indented = false
		}
		prevBlank = trimmed == ""
	}
	return strings.Join(lines, "")
}

// blankChangelog returns text with its changelog sections (a heading
// beginning "Changelog", down to the next heading of its level or
// above) blanked as blankCodeBlocks does: a changelog names what was
// renamed or removed, which exists no more by design.
func blankChangelog(text string) string {
	lines := strings.SplitAfter(text, "\n")
	level := 0 // of the changelog heading being blanked; 0: none
	for i, l := range lines {
		if n := headingLevel(l); n > 0 {
			if level > 0 && n <= level {
				level = 0
			}
			if level == 0 && strings.HasPrefix(strings.TrimSpace(strings.TrimLeft(l, "#")), "Changelog") {
				level = n
			}
		}
		if level > 0 {
			lines[i] = blankLine(l)
		}
	}
	return strings.Join(lines, "")
}

// headingLevel is the level of an ATX heading line ("## x" is 2), or 0.
func headingLevel(l string) int {
	n := 0
	for n < len(l) && l[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n == len(l) || (l[n] != ' ' && l[n] != '\n') {
		return 0
	}
	return n
}

func blankLine(l string) string {
	if strings.HasSuffix(l, "\n") {
		return strings.Repeat(" ", len(l)-1) + "\n"
	}
	return strings.Repeat(" ", len(l))
}

// codeSpans returns the [start, end) offsets of the contents of the
// code spans of text: a run of n backticks up to the next run of exactly
// n backticks. An unmatched run is literal text.
func codeSpans(text string) [][2]int {
	var spans [][2]int
	for i := 0; i < len(text); {
		if text[i] != '`' {
			i++
			continue
		}
		n := run(text, i)
		open := i + n
		j := open
		closed := false
		for j < len(text) {
			k := strings.IndexByte(text[j:], '`')
			if k < 0 {
				break
			}
			j += k
			m := run(text, j)
			if m == n {
				spans = append(spans, [2]int{open, j})
				i = j + m
				closed = true
				break
			}
			j += m
		}
		if !closed {
			i = open
		}
	}
	return spans
}

func run(text string, i int) int {
	n := 0
	for i+n < len(text) && text[i+n] == '`' {
		n++
	}
	return n
}
