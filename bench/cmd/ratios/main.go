// Command ratios reads go test -bench output of BenchmarkToolsCall and
// BenchmarkRPCEcho (any benchmark named …/impl=NAME; from the files named,
// or standard input) and prints, for each benchmark, transport and mode,
// each mcpwire variant against the faster peer: the medians of
// ns/call and allocs/call, and the speed-up (the peer's time over
// mcpwire's: above 1, mcpwire is faster). Servers driven by the shared
// plain HTTP client (impl=…-plain) are compared only with each other.
// run.sh prints it after benchstat's tables.
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/mcpwire/mcpwire/bench/internal/benchout"
)

// result is one line of benchmark output.
type result struct {
	row, impl     string // "ToolsCall/transport=mem/mode=pipelined", "mcpwire"
	ns, allocs, b float64
}

// parse reads the lines of r that report a benchmark with an impl=.
func parse(r io.Reader) ([]result, error) {
	rs, _, err := benchout.Parse(r)
	out := make([]result, len(rs))
	for i, r := range rs {
		out[i] = result{r.Row, r.Impl, r.Values["ns/op"], r.Values["allocs/op"], r.Values["B/op"]}
	}
	return out, err
}

var median = benchout.Median

type stats struct{ ns, allocs, b float64 }

// summarise returns the rows in order of appearance and each row's
// implementations' medians.
func summarise(rs []result) ([]string, map[string]map[string]stats) {
	var rows []string
	samples := map[string]map[string][]result{}
	for _, r := range rs {
		if samples[r.row] == nil {
			samples[r.row] = map[string][]result{}
			rows = append(rows, r.row)
		}
		samples[r.row][r.impl] = append(samples[r.row][r.impl], r)
	}
	med := map[string]map[string]stats{}
	for row, impls := range samples {
		med[row] = map[string]stats{}
		for impl, s := range impls {
			var ns, al, b []float64
			for _, r := range s {
				ns, al, b = append(ns, r.ns), append(al, r.allocs), append(b, r.b)
			}
			med[row][impl] = stats{median(ns), median(al), median(b)}
		}
	}
	return rows, med
}

// plain reports whether an implementation is a server driven by the
// shared plain HTTP client: those are compared only with each other.
func plain(impl string) bool { return strings.HasSuffix(impl, "-plain") }

func report(w io.Writer, rs []result) {
	rows, med := summarise(rs)
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "row\tmcpwire\tns/call\tallocs/call\tfaster peer\tns/call\tallocs/call\tspeed-up\tallocs ratio\t")
	for _, row := range rows {
		impls := med[row]
		// The faster peer of each kind, and mcpwire's variants (or a
		// placeholder per kind, so that rows without mcpwire still show
		// the peer to beat).
		fastest := map[bool]string{}
		var ours []string
		for name, s := range impls {
			if strings.HasPrefix(name, "mcpwire") {
				ours = append(ours, name)
			} else if f, ok := fastest[plain(name)]; !ok || s.ns < impls[f].ns {
				fastest[plain(name)] = name
			}
		}
		for _, k := range []bool{false, true} {
			if _, ok := fastest[k]; ok && !slices.ContainsFunc(ours, func(n string) bool { return plain(n) == k }) {
				ours = append(ours, "-"+map[bool]string{true: "plain"}[k])
			}
		}
		slices.SortFunc(ours, func(a, b string) int { return strings.Compare(strings.TrimPrefix(a, "-"), strings.TrimPrefix(b, "-")) })
		for _, name := range ours {
			m, have := impls[name]
			peer, ok := fastest[plain(name)]
			cells := []string{row, "-", "-", "-", "-", "-", "-", "-", "-"}
			if have {
				cells[1], cells[2], cells[3] = name, ns(m.ns), num(m.allocs)
			}
			if ok {
				p := impls[peer]
				cells[4], cells[5], cells[6] = peer, ns(p.ns), num(p.allocs)
				if have {
					cells[7] = fmt.Sprintf("%.2f×", p.ns/m.ns)
					cells[8] = fmt.Sprintf("%.2f", m.allocs/p.allocs)
				}
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
		}
	}
	tw.Flush()
}

func ns(v float64) string {
	if v >= 1000 {
		return fmt.Sprintf("%.1fµs", v/1000)
	}
	return fmt.Sprintf("%.0fns", v)
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func main() {
	var rs []result
	read := func(r io.Reader) {
		more, err := parse(r)
		if err != nil {
			fmt.Fprintln(os.Stderr, "ratios:", err)
			os.Exit(1)
		}
		rs = append(rs, more...)
	}
	if len(os.Args) == 1 {
		read(os.Stdin)
	}
	for _, name := range os.Args[1:] {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "ratios:", err)
			os.Exit(1)
		}
		read(f)
		f.Close()
	}
	report(os.Stdout, rs)
}
