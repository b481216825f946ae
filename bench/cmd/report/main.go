// Command report turns the output of bench's workloads (go test -bench,
// any number of rounds, from the files named or standard input) into
// RESULTS.md, results.json and results.png in -out: each
// implementation's median per workload, mcpwire's advantage over the
// best peer, the targets met and missed, the strictness table of W5, and
// a chart. run.sh runs it after the rounds.
//
//	report [-out DIR] [-variant short|full] [-note TEXT] [-gomod go.mod] [FILE…]
//
// results.json holds exactly {"go", "cpu", "workloads": {KEY: {"unit",
// "better", "impls": {NAME: median}}}}; the keys are W1, W2, W3,
// W4-pipelined, W4-roundtrip, W4-list, W5, W6, W6-memory,
// W7-rss and W7-allocs.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/bench/internal/benchout"
)

func main() {
	if err := run(os.Args[1:], os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

// run parses the flags, reads the benchmark output and writes the three
// files.
func run(args []string, stdin io.Reader) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	out := fs.String("out", ".", "the directory to write RESULTS.md, results.json and results.png to")
	variant := fs.String("variant", "full", "which run.sh variant made the input: short or full")
	note := fs.String("note", "", "a sentence about the machine or the run, for RESULTS.md")
	gomod := fs.String("gomod", "go.mod", "the bench module's go.mod, for the peers' versions")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var rs []benchout.Result
	header := map[string]string{}
	read := func(r io.Reader) error {
		more, h, err := benchout.Parse(r)
		rs = append(rs, more...)
		for k, v := range h {
			header[k] = v
		}
		return err
	}
	if fs.NArg() == 0 {
		if err := read(stdin); err != nil {
			return err
		}
	}
	for _, name := range fs.Args() {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		err = read(f)
		f.Close()
		if err != nil {
			return err
		}
	}
	res := collect(rs, runtime.Version(), header["cpu"])
	if len(res.Workloads) == 0 {
		return errors.New("no workload's results in the input")
	}
	versions, err := peerVersions(*gomod)
	if err != nil {
		return err
	}
	m := meta{date: time.Now().UTC().Format("2006-01-02"), variant: *variant, note: *note,
		goos: or(header["goos"], runtime.GOOS), goarch: or(header["goarch"], runtime.GOARCH), cores: runtime.NumCPU(), versions: versions}
	js, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	var md, png bytes.Buffer
	if err := writeMarkdown(&md, res, m); err != nil {
		return err
	}
	if err := writeChart(&png, res); err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	for name, data := range map[string][]byte{"results.json": append(js, '\n'), "RESULTS.md": md.Bytes(), "results.png": png.Bytes()} {
		if err := os.WriteFile(filepath.Join(*out, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// peerVersions reads the peers' versions from the require lines of a
// go.mod.
func peerVersions(gomod string) ([]string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	found := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "require "))
		if len(fields) >= 2 {
			found[fields[0]] = fields[1]
		}
	}
	var out []string
	for _, p := range peerModules {
		if v, ok := found[p.path]; ok {
			out = append(out, p.name+" "+p.path+" "+v)
		}
	}
	return out, sc.Err()
}
