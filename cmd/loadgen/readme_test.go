package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// docLine is a command line of the documentation, and its arguments.
type docLine struct {
	text string
	args []string
}

// docLoadgenLines returns the loadgen command lines the documentation
// shows (indented lines "loadgen -…" of README.md and docs/*.md), each
// split into its arguments as a shell would, without "loadgen", in the
// order they come.
func docLoadgenLines(t *testing.T) []docLine {
	t.Helper()
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, "../../README.md")
	re := regexp.MustCompile(`(?m)^ {4}(?:\$ )?loadgen (-.*)$`)
	var found []docLine
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			args, err := shellWords(m[1])
			if err != nil {
				t.Fatalf("%s: %q: %v", f, m[0], err)
			}
			found = append(found, docLine{strings.TrimSpace(m[0]), args})
		}
	}
	if len(found) == 0 {
		t.Fatal("no loadgen command line in README.md or docs/")
	}
	return found
}

// shellWords splits s as a shell splits a simple command: on blanks,
// with '…' and "…" quoting (no escapes, no expansions).
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			w.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote", quote)
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}

func TestShellWords(t *testing.T) {
	got, err := shellWords(`-params '[{{rand 100}}, 1]' -expect 41 'stdio:./server -flag' -args '{"a":"b c"}' x`)
	want := []string{"-params", "[{{rand 100}}, 1]", "-expect", "41", "stdio:./server -flag", "-args", `{"a":"b c"}`, "x"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("shellWords = %q, %v; want %q", got, err, want)
	}
	if _, err := shellWords(`-params '[1`); err == nil {
		t.Error("an open quote accepted")
	}
}

// TestDocs_loadgenLinesRun runs each loadgen command line of the
// documentation against the demo server, on a target of the kind the
// line names (its address replaced by the demo server's), for 300 calls
// rather than its duration, with its files in a temporary directory:
// each must get every call answered with the result it expects (with
// -expect, none a mismatch). Only -max-p99 may fail a run: the machine
// that runs the tests may be slower than the example assumes.
func TestDocs_loadgenLinesRun(t *testing.T) {
	dir := t.TempDir()
	var lastJSON string
	for _, d := range docLoadgenLines(t) {
		line := d.text
		t.Run(strings.Join(d.args, " "), func(t *testing.T) {
			args, err := demoArgs(t, d.args, dir, &lastJSON)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			if slices.Contains(args, "-compare") {
				if code := run(t.Context(), args, &strings.Builder{}, &strings.Builder{}); code != 0 {
					t.Errorf("%s: exit %d", line, code)
				}
				return
			}
			r, code, out := load(t, args...)
			if code != 0 && !(len(r.Failed) == 1 && strings.Contains(r.Failed[0], "-max-p99")) {
				t.Errorf("%s: exit %d, failed %q:\n%s", line, code, r.Failed, out)
			}
			if r.Requests == 0 || r.OK != r.Requests || r.Errors != 0 || r.Mismatches != 0 {
				t.Errorf("%s: requests %d, ok %d, errors %d, mismatches %d; want every call answered as expected:\n%s",
					line, r.Requests, r.OK, r.Errors, r.Mismatches, out)
			}
		})
	}
}

// demoArgs rewrites a documented command line to run here: the target's
// address becomes the demo server's (started for the test), -d goes and
// -n 300 bounds the run, files go to dir, and -compare compares the last
// -json report with itself.
func demoArgs(t *testing.T, args []string, dir string, lastJSON *string) ([]string, error) {
	var out []string
	n := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-d" && i+1 < len(args):
			i++
			continue
		case a == "-n":
			n = true
		case a == "-json" && i+1 < len(args):
			i++
			*lastJSON = filepath.Join(dir, filepath.Base(args[i]))
			out = append(out, a, *lastJSON)
			continue
		case a == "-html" && i+1 < len(args):
			i++
			out = append(out, a, filepath.Join(dir, filepath.Base(args[i])))
			continue
		case a == "-target" && i+1 < len(args):
			i++
			target, err := demoTarget(t, args[i], dir)
			if err != nil {
				return nil, err
			}
			out = append(out, a, target)
			continue
		case a == "-compare":
			if *lastJSON == "" {
				t.Skip("no -json line to compare")
			}
			return []string{"-compare", *lastJSON, *lastJSON}, nil
		case i == len(args)-1 && !strings.HasPrefix(a, "-") && (i == 0 || !takesValue(args[i-1])):
			target, err := demoTarget(t, a, dir)
			if err != nil {
				return nil, err
			}
			if target != "" {
				out = append(out, target)
			}
			continue
		}
		out = append(out, a)
	}
	if !n {
		out = append([]string{"-n", "300"}, out...)
	}
	return out, nil
}

// takesValue reports whether flag name is one that takes a value, so
// that the word after it is no target.
func takesValue(name string) bool {
	fs := flagSet(&options{header: headers{}})
	f := fs.Lookup(strings.TrimLeft(name, "-"))
	if f == nil {
		return false
	}
	bf, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !bf.IsBoolFlag()
}

// demoTarget starts a demo server for a target of the kind of target,
// one for each target of a list.
func demoTarget(t *testing.T, target, dir string) (string, error) {
	if list := splitTargets(target); len(list) > 1 {
		for i, one := range list {
			sub := filepath.Join(dir, strconv.Itoa(i)) // a unix socket's each
			if err := os.MkdirAll(sub, 0o755); err != nil {
				return "", err
			}
			var err error
			if list[i], err = demoTarget(t, one, sub); err != nil {
				return "", err
			}
		}
		return strings.Join(list, ","), nil
	}
	kind, rest, _ := strings.Cut(target, ":")
	_, path, _ := strings.Cut(strings.TrimPrefix(rest, "//"), "/")
	switch kind {
	case "stdio":
		return "stdio:" + demoBin.Path(t), nil
	case "tcp":
		return startServer(t, "-listen", "tcp://127.0.0.1:0").addr, nil
	case "unix":
		sock := filepath.Join(dir, "demo.sock")
		return startServer(t, "-listen", "unix://"+sock).addr, nil
	case "ws":
		return "ws" + strings.TrimPrefix(startServer(t, "-listen", "http://127.0.0.1:0").addr, "http") + "/" + path, nil
	case "http":
		return startServer(t, "-listen", "http://127.0.0.1:0").addr + "/" + path, nil
	}
	return "", fmt.Errorf("target %q: no demo server of that kind", target)
}
