package main

// A run loads one target or several. Several are given as a list in the
// TARGET argument (tcp://127.0.0.1:7000,tcp://127.0.0.1:7001), with the
// repeatable -target flag, or both (the flags' first); a stdio: command
// may hold commas, so an argument that starts with stdio: is one target,
// and several stdio targets take -target each. Connection i goes to
// target i mod n (round robin), so each target gets -c/n connections
// (the first -c mod n one more), and -c must be at least n.

import (
	"fmt"
	"regexp"
	"strings"
)

// targetFlags is -target, repeatable.
type targetFlags []string

func (f *targetFlags) String() string { return strings.Join(*f, ",") }
func (f *targetFlags) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("want a target URL")
	}
	*f = append(*f, s)
	return nil
}

// listSep matches a comma that begins another target of a list: one
// followed by a scheme and "://", so that a comma inside a URL (a query's)
// does not split it.
var listSep = regexp.MustCompile(`,\s*[a-zA-Z][a-zA-Z0-9+.-]*://`)

// splitTargets splits the TARGET argument into the targets it lists.
func splitTargets(arg string) []string {
	if arg == "" {
		return nil
	}
	if strings.HasPrefix(arg, "stdio:") {
		return []string{arg} // a command: its commas are its own
	}
	var out []string
	for {
		loc := listSep.FindStringIndex(arg)
		if loc == nil {
			if last, ok := strings.CutSuffix(strings.TrimSpace(arg), ","); ok {
				return append(out, last, "") // a list that ends in a comma: the empty target is refused
			}
			return append(out, arg)
		}
		out = append(out, arg[:loc[0]])
		arg = strings.TrimLeft(arg[loc[0]+1:], " \t")
	}
}

// family names the kind of transport of a target kind: the targets of a
// run must share one, so that -framing, -pipeline and the choice of
// -procs mean the same for all of them.
func family(kind string) string {
	switch kind {
	case "tcp", "unix":
		return "tcp:// and unix://"
	case "ws":
		return "ws:// and wss://"
	case "http":
		return "http:// and https://"
	}
	return kind + ":"
}

// parseTargets reads the -target flags and the TARGET argument: none
// (the demo server in process) or the targets, in order.
func parseTargets(flags []string, arg string) ([]target, error) {
	all := append(append([]string(nil), flags...), splitTargets(arg)...)
	ts := make([]target, 0, len(all))
	seen := make(map[string]bool, len(all))
	for _, s := range all {
		if s == "" {
			return nil, fmt.Errorf("targets %q: an empty target in the list", arg)
		}
		t, err := parseTarget(s)
		if err != nil {
			return nil, err
		}
		if seen[t.url] {
			return nil, fmt.Errorf("target %s is given twice: give each target once (-c sets the connections)", t.url)
		}
		seen[t.url] = true
		if len(ts) > 0 && family(t.kind) != family(ts[0].kind) {
			return nil, fmt.Errorf("targets %s and %s: a run loads one kind of transport (%s), not a mix", ts[0].url, t.url, family(ts[0].kind))
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// joinTargets names the targets as the report's target does: their URLs
// joined by commas.
func joinTargets(ts []target) string {
	urls := make([]string, len(ts))
	for i, t := range ts {
		urls[i] = t.url
	}
	return strings.Join(urls, ",")
}

// connsOf is how many of conns connections go to target k of n.
func connsOf(k, n, conns int) int {
	c := conns / n
	if k < conns%n {
		c++
	}
	return c
}
