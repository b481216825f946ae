package main

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// template is a JSON text with placeholders, rendered anew for each call:
//
//	{{seq}}          the call's sequence number in the run (1, 2, …)
//	{{rand N}}       a random integer in [0, N)
//	{{randstr N}}    N random letters and digits (put it inside quotes)
//	{{choice a,b,c}} one of the texts, verbatim (quote them for strings)
//
// A template without placeholders is its text, copied. A newline in the
// text (white space in JSON outside strings, and never valid inside one)
// is read as a space, so that a rendering is always one line: framed by
// a newline, it needs no scan for one. Safe for concurrent use: the
// state a rendering needs is its caller's.
type template struct {
	parts []part
}

// part is a literal text or a placeholder.
type part struct {
	lit     string
	op      byte // 0: literal; 's' seq, 'r' rand, 'a' randstr, 'c' choice
	n       uint64
	choices []string
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// parseTemplate reads a template. Its JSON validity is checked by the
// caller on a rendering (the placeholders may sit anywhere).
func parseTemplate(s string) (*template, error) {
	s = strings.ReplaceAll(s, "\n", " ")
	t := &template{}
	for s != "" {
		i := strings.Index(s, "{{")
		if i < 0 {
			t.parts = append(t.parts, part{lit: s})
			break
		}
		if i > 0 {
			t.parts = append(t.parts, part{lit: s[:i]})
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			return nil, fmt.Errorf("template %q: {{ without }}", s)
		}
		p, err := parsePlaceholder(strings.TrimSpace(s[i+2 : i+j]))
		if err != nil {
			return nil, err
		}
		t.parts = append(t.parts, p)
		s = s[i+j+2:]
	}
	return t, nil
}

func parsePlaceholder(s string) (part, error) {
	name, arg, _ := strings.Cut(s, " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case "seq":
		if arg == "" {
			return part{op: 's'}, nil
		}
	case "rand", "randstr":
		n, err := strconv.ParseUint(arg, 10, 64)
		if err != nil || n == 0 {
			return part{}, fmt.Errorf("{{%s}}: want {{%s N}} with N a positive integer", s, name)
		}
		if name == "randstr" && n > 1<<20 {
			return part{}, fmt.Errorf("{{%s}}: at most %d characters", s, 1<<20)
		}
		op := byte('r')
		if name == "randstr" {
			op = 'a'
		}
		return part{op: op, n: n}, nil
	case "choice":
		if arg != "" {
			return part{op: 'c', choices: strings.Split(arg, ",")}, nil
		}
	}
	return part{}, fmt.Errorf("{{%s}}: unknown placeholder; want {{seq}}, {{rand N}}, {{randstr N}} or {{choice a,b,c}}", s)
}

// literal returns the text of a template without placeholders (ok false
// for one with any, or for nil).
func (t *template) literal() (text string, ok bool) {
	if t == nil || len(t.parts) > 1 || (len(t.parts) == 1 && t.parts[0].op != 0) {
		return "", false
	}
	if len(t.parts) == 0 {
		return "", true
	}
	return t.parts[0].lit, true
}

// append renders the template for call number seq onto dst.
func (t *template) append(dst []byte, seq uint64, r *rand.Rand) []byte {
	for i := range t.parts {
		p := &t.parts[i]
		switch p.op {
		case 0:
			dst = append(dst, p.lit...)
		case 's':
			dst = strconv.AppendUint(dst, seq, 10)
		case 'r':
			dst = strconv.AppendUint(dst, r.Uint64N(p.n), 10)
		case 'a':
			for range p.n {
				dst = append(dst, alnum[r.IntN(len(alnum))])
			}
		case 'c':
			dst = append(dst, p.choices[r.IntN(len(p.choices))]...)
		}
	}
	return dst
}
