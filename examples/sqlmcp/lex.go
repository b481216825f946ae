package main

import (
	"errors"
	"strings"
)

// A lexer for SQL text, just enough to tell statements apart and to find
// their words: it knows the comments, strings and quoted identifiers of
// SQLite, MySQL/MariaDB and PostgreSQL, and nothing of their grammars.
// Where the dialects differ, it reads the text as the dialect in use
// does, so that no code can hide from it in what it took for a comment
// or a string.

// tokenKind is what a token is.
type tokenKind uint8

const (
	tokWord   tokenKind = iota // a bare word: a keyword or an unquoted identifier, upper-cased
	tokQuoted                  // a quoted identifier ("x", `x`, [x]), unquoted
	tokString                  // a string or other literal; its text is not kept
	tokPunct                   // any other character, one at a time
)

// token is one token of a statement.
type token struct {
	kind tokenKind
	text string
}

// statement is the tokens between two semicolons; comments are dropped.
type statement []token

// firstWord returns the statement's first word after any opening
// parentheses, or "".
func (s statement) firstWord() string {
	for _, t := range s {
		switch {
		case t.kind == tokPunct && t.text == "(":
			continue
		case t.kind == tokWord:
			return t.text
		}
		return ""
	}
	return ""
}

// lexer options by dialect.
type lexOptions struct {
	backslashEscapes bool // MySQL: '\'' is a quote inside a string
	hashComments     bool // MySQL: # starts a comment
	dashNeedsSpace   bool // MySQL: -- starts a comment only before white space
	execComments     bool // MySQL: /*! … */ holds code
	nestedComments   bool // PostgreSQL: /* /* */ */
	dollarQuotes     bool // PostgreSQL: $tag$ … $tag$
	escapeStrings    bool // PostgreSQL: E'\''
	brackets         bool // SQLite: [identifier]
}

var errUnterminated = errors.New("the statement ends inside a string, a quoted identifier or a comment")

// splitStatements cuts src into statements, dropping empty ones.
func splitStatements(src string, o lexOptions) ([]statement, error) {
	var out []statement
	var cur statement
	flush := func() {
		if len(cur) > 0 {
			out = append(out, cur)
			cur = nil
		}
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == ';':
			flush()
			i++
		case c == '-' && strings.HasPrefix(src[i:], "--") && (!o.dashNeedsSpace || i+2 == len(src) || isSpace(src[i+2])):
			i = lineEnd(src, i)
		case c == '#' && o.hashComments:
			i = lineEnd(src, i)
		case c == '/' && strings.HasPrefix(src[i:], "/*"):
			if o.execComments && (strings.HasPrefix(src[i:], "/*!") || strings.HasPrefix(src[i:], "/*M!")) {
				// Code MySQL runs: read on as if the marker were not there.
				i += strings.IndexByte(src[i:], '!') + 1
				for i < len(src) && isDigit(src[i]) {
					i++
				}
				continue
			}
			end, ok := commentEnd(src, i, o.nestedComments)
			if !ok {
				return nil, errUnterminated
			}
			i = end
		case c == '\'':
			end, ok := quotedEnd(src, i, '\'', o.backslashEscapes)
			if !ok {
				return nil, errUnterminated
			}
			cur = append(cur, token{kind: tokString})
			i = end
		case (c == 'E' || c == 'e') && o.escapeStrings && i+1 < len(src) && src[i+1] == '\'' && !prevIsWord(src, i):
			end, ok := quotedEnd(src, i+1, '\'', true)
			if !ok {
				return nil, errUnterminated
			}
			cur = append(cur, token{kind: tokString})
			i = end
		case c == '"' || c == '`' || (c == '[' && o.brackets):
			q := c
			if c == '[' {
				q = ']'
			}
			// MySQL reads "…" as a string, with backslash escapes.
			end, ok := quotedEnd(src, i, q, c == '"' && o.backslashEscapes)
			if !ok {
				return nil, errUnterminated
			}
			inner := src[i+1 : end-1]
			if q != ']' {
				inner = strings.ReplaceAll(inner, string([]byte{q, q}), string(q))
			}
			cur = append(cur, token{kind: tokQuoted, text: inner})
			i = end
		case c == '$' && o.dollarQuotes && !prevIsWord(src, i):
			if tag, ok := dollarTag(src, i); ok {
				j := strings.Index(src[i+len(tag):], tag)
				if j < 0 {
					return nil, errUnterminated
				}
				cur = append(cur, token{kind: tokString})
				i += len(tag) + j + len(tag)
				continue
			}
			cur = append(cur, token{kind: tokPunct, text: "$"})
			i++
		case isWordStart(c):
			j := i + 1
			for j < len(src) && isWordPart(src[j]) {
				j++
			}
			cur = append(cur, token{kind: tokWord, text: strings.ToUpper(src[i:j])})
			i = j
		case isDigit(c):
			j := i + 1
			for j < len(src) && (isWordPart(src[j]) || src[j] == '.') {
				j++
			}
			cur = append(cur, token{kind: tokString})
			i = j
		default:
			cur = append(cur, token{kind: tokPunct, text: src[i : i+1]})
			i++
		}
	}
	flush()
	return out, nil
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isWordStart: letters, _, and any byte of a multi-byte UTF-8 character
// (identifiers may hold them).
func isWordStart(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || c >= 0x80
}

func isWordPart(c byte) bool { return isWordStart(c) || isDigit(c) || c == '$' }

// prevIsWord reports whether src[i] continues a word (E in "TABLE'…" or
// $ in "a$b" is no prefix).
func prevIsWord(src string, i int) bool { return i > 0 && isWordPart(src[i-1]) }

// lineEnd returns the index after the line that holds src[i].
func lineEnd(src string, i int) int {
	if j := strings.IndexByte(src[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(src)
}

// commentEnd returns the index after the block comment opening at src[i].
func commentEnd(src string, i int, nested bool) (int, bool) {
	depth := 0
	for j := i; j+1 < len(src); {
		switch {
		case src[j] == '/' && src[j+1] == '*':
			if depth == 0 || nested {
				depth++
			}
			j += 2
		case src[j] == '*' && src[j+1] == '/':
			depth--
			j += 2
			if depth == 0 {
				return j, true
			}
		default:
			j++
		}
	}
	return 0, false
}

// quotedEnd returns the index after the quoted text opening at src[i]
// and closing with q (doubled q stands for itself; so does an escaped
// one with backslash).
func quotedEnd(src string, i int, q byte, backslash bool) (int, bool) {
	for j := i + 1; j < len(src); j++ {
		switch {
		case backslash && src[j] == '\\':
			j++
		case src[j] == q:
			if j+1 < len(src) && src[j+1] == q && q != ']' {
				j++
				continue
			}
			return j + 1, true
		}
	}
	return 0, false
}

// dollarTag returns the $tag$ opening a dollar-quoted string at src[i].
func dollarTag(src string, i int) (string, bool) {
	for j := i + 1; j < len(src); j++ {
		switch c := src[j]; {
		case c == '$':
			return src[i : j+1], true
		case isWordStart(c) || (isDigit(c) && j > i+1):
		default:
			return "", false
		}
	}
	return "", false
}
