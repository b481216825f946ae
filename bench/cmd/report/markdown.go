package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/mcpwire/mcpwire/bench/echo"
	"github.com/mcpwire/mcpwire/bench/valid"
)

// meta is what the report says about the run.
type meta struct {
	date, variant, note string
	goos, goarch        string
	cores               int
	versions            []string // "jrpc2 github.com/creachadair/jrpc2 v1.3.6"
}

// writeMarkdown writes RESULTS.md.
func writeMarkdown(w io.Writer, res results, m meta) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# bench results\n\n")
	p("Generated %s by `./run.sh%s` (`cmd/report`; do not edit by hand): the **%s** variant. %s\n\n", m.date, map[bool]string{true: " -short"}[m.variant == "short"], m.variant, m.note)
	p("- Machine: %s, %s/%s, %d cores seen by Go\n", res.CPU, m.goos, m.goarch, m.cores)
	p("- Go: %s\n", res.Go)
	p("- Peers: %s\n", strings.Join(m.versions, "; "))
	p("- Raw output: [results.txt](results.txt) (`benchstat -col /impl results.txt`); medians: [results.json](results.json); chart: [results.png](results.png)\n\n")
	p("Each figure is the median of its samples in results.txt: one per round, or in the full variant one per slice for W1–W5 (5 a round). **Advantage** is how many times better mcpwire is than the other: the other's figure ÷ mcpwire's where lower is better, mcpwire's ÷ the other's where higher is better; above 1, mcpwire leads. The targets compare mcpwire with the best peer library of the same run (W5: with sonic); the baselines (naive-stdjson, naive-sonic, indexbyte, idle, floor) are shown but are not peers. floor, in the outside workloads, is fasthttp with cmd/demoserver's options answering wrk's calls by byte search, with no JSON parsing and no JSON-RPC validation: what the HTTP stack and the kernel cost per call, which no server on fasthttp beats; read a target against it (a target above floor ÷ best peer cannot be met with this HTTP stack and client).\n\n")
	p("## Summary\n\n| workload | what | unit | mcpwire | best peer | advantage | target | met |\n|---|---|---|---|---|---|---|---|\n")
	for _, wl := range workloads {
		e, ok := res.Workloads[wl.key]
		if !ok {
			continue
		}
		mine, have := e.Impls["mcpwire"]
		peer := bestPeer(e)
		ref := peer
		if wl.ref != "" {
			ref = wl.ref
		}
		adv := advantage(e, mine, e.Impls[ref])
		target, met := "—", "—"
		if wl.target > 0 {
			target = fmt.Sprintf("≥ %s× vs %s", num(wl.target), or(wl.ref, "best peer"))
			met = map[bool]string{true: "**yes**", false: "no"}[adv >= wl.target]
		}
		mineCell := "—"
		if have {
			mineCell = format(e.Unit, mine)
		}
		peerCell := "—"
		if peer != "" {
			peerCell = peer + " " + format(e.Unit, e.Impls[peer])
		}
		advCell := ratio(adv)
		if wl.ref != "" && ref != peer {
			advCell = fmt.Sprintf("%s (vs %s); %s (vs %s)", ratio(advantage(e, mine, e.Impls[peer])), peer, ratio(adv), ref)
		}
		p("| %s | %s | %s (%s is better) | %s | %s | %s | %s | %s |\n", wl.key, wl.title, e.Unit, e.Better, mineCell, peerCell, advCell, target, met)
	}
	writeModeCosts(p, res)
	p("\n## Each workload\n")
	for _, wl := range workloads {
		e, ok := res.Workloads[wl.key]
		if !ok {
			continue
		}
		p("\n### %s — %s\n\n`Benchmark%s/impl=…`, %s, %s is better.\n\n| impl | median | mcpwire's advantage |%s\n|---|---|---|%s\n", wl.key, wl.title, wl.bench, e.Unit, e.Better,
			map[bool]string{true: " a user of the defaults gets it |"}[wl.modes], map[bool]string{true: "---|"}[wl.modes])
		mine, have := e.Impls["mcpwire"]
		for _, impl := range sortedImpls(e) {
			name := impl
			if baselines[impl] {
				name += " (baseline)"
			}
			adv := "—"
			if have && impl != "mcpwire" {
				adv = ratio(advantage(e, mine, e.Impls[impl]))
			}
			p("| %s | %s | %s |", name, format(e.Unit, e.Impls[impl]), adv)
			if wl.modes {
				p(" %s |", map[bool]string{true: "**yes**", false: "no"}[isDefault(impl)])
			}
			p("\n")
		}
	}
	p("\n## Who can do what\n\n")
	p("- W1, W2, W3, W6, W7 are plain JSON-RPC: the echo service of `bench/echo` on mcpwire, jrpc2, sourcegraph, x/exp/jsonrpc2, go-ethereum and the two naive loops. go-sdk and mcp-go are MCP SDKs with no plain JSON-RPC server: they are in W4 only, and W4 has only the three MCP SDKs.\n")
	p("- W8 and W9 are over HTTP on loopback, in process (one small client for every server) and, in the rows named …-outside, from outside: each server a process of its own loaded by `wrk` through a Lua script that checks every answer (`bench/outside/run.sh`). W8 is the three MCP SDKs over Streamable HTTP, W9 plain JSON-RPC over HTTP POST (mcpwire, go-ethereum, jrpc2 in process). Their tables say which rows **a user of the defaults gets**: `mcpwire` is `cmd/demoserver` (from outside) or the handlers with nil options; rows named …-json are a library's JSON response mode (mcp-go's defaults already answer JSON), and `mcpwire-fasthttp` is demoserver's -fast-rpc. The summary compares the `mcpwire` row (its defaults) with the best peer row of any mode. The …-outside tables also show `floor` (`cmd/httpecho -impl floor`), the baseline above: the most a server on fasthttp can answer of wrk's calls, so the distance from a row to floor is what that server itself costs.\n")
	p("- Batches (W3): ")
	var nb []string
	for _, name := range echo.Names {
		if why, ok := echo.NoBatches[name]; ok {
			nb = append(nb, fmt.Sprintf("**%s** has none: given one, it %s", name, why))
		}
	}
	p("%s. The others answer a batch with an array.\n", strings.Join(nb, "; "))
	p("\n## Strictness (W5)\n\nWhich validators accept which malformed input (`bench/valid`, computed when this page was made). Every case but the lone surrogate breaks RFC 8259's grammar; a lone surrogate is grammatical, and I-JSON (RFC 7493) rejects it.\n\n| validator |")
	for _, c := range valid.Cases {
		p(" %s |", c.Name)
	}
	p("\n|---|%s\n", strings.Repeat("---|", len(valid.Cases)))
	for _, im := range valid.Impls {
		p("| %s |", im.Name)
		for _, acc := range valid.Accepts(im) {
			p(" %s |", map[bool]string{true: "accepts", false: "rejects"}[acc])
		}
		p("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// ratio formats an advantage.
func ratio(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.2f×", v)
}

// num formats a plain number without trailing zeros.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// format writes v in unit for people: µs, KiB, MiB, thousands.
func format(unit string, v float64) string {
	switch unit {
	case "ns/op", "ns/item":
		switch {
		case v >= 1e6:
			return fmt.Sprintf("%.2f ms", v/1e6)
		case v >= 1e3:
			return fmt.Sprintf("%.2f µs", v/1e3)
		}
		return fmt.Sprintf("%.0f ns", v)
	case "B/conn", "peak-RSS-B":
		switch {
		case v >= 1<<20:
			return fmt.Sprintf("%.1f MiB", v/(1<<20))
		case v >= 1<<10:
			return fmt.Sprintf("%.1f KiB", v/(1<<10))
		}
		return fmt.Sprintf("%.0f B", v)
	case "server-µs/call":
		return fmt.Sprintf("%.1f µs", v)
	case "req/s", "MB/s", "calls/s":
		return thousands(v) + " " + unit
	}
	return num(v)
}

// thousands formats v rounded, with commas.
func thousands(v float64) string {
	s := strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
