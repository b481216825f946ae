package main

import (
	"bytes"
	"encoding/hex"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/mcp"
)

// The memory and the time of one statement are bounded whatever it asks
// for: a value of a gigabyte, a row of many large values, four such
// statements at once. Each is answered with a tool error that says which
// bound it met, or the timeout, (or, where the database itself cuts the
// value, a short result) within the timeout and 10%, and the server's
// peak resident memory stays under peakRSSBound.

// peakRSSBound is the most resident memory the server may reach under
// the attacks below.
const peakRSSBound = 300 << 20

// boundsTimeout is the statement timeout of these tests: the one the
// server has by default.
const boundsTimeout = 5 * time.Second

// loadSlack is what a loaded machine may add to an answer's time on top
// of the 10% the timeout is held to.
const loadSlack = time.Second

// hugeValue is a statement each backend would answer with a value, or
// a row, of hundreds of megabytes or a gigabyte.
type hugeValue struct {
	name, sql string
	// want: the tool error says one of these (nil: a result is fine,
	// where the database itself cuts the value).
	want []string
	// quick: answered within a tenth of the timeout, not by it.
	quick bool
}

// Tool errors of the bounds.
const (
	tooLong  = "longer than 16 MiB"
	tooMuch  = "more than the 64 MiB of memory"
	timedOut = "ran longer than the timeout"
)

// hugeValues: SQLite makes the value in this process, in one call
// (randomblob(1e9) took 15 s and 1 GiB, past a timeout of 5 s), so its
// bounds refuse it at once. MariaDB and PostgreSQL make it in their own
// process and send it: the row is refused from its header, or the
// server is still making it when the timeout cuts the statement.
var hugeValues = map[string][]hugeValue{
	"sqlite": {
		{"randomblob", "SELECT length(randomblob(1e9))", []string{tooLong}, true},
		{"zeroblob", "SELECT zeroblob(1e9)", []string{tooLong}, true},
		{"printf", "SELECT length(printf('%.*c', 1000000000, 'x'))", []string{tooLong}, true},
		{"wide row", "SELECT " + strings.Repeat("randomblob(16000000), ", 7) + "1", []string{tooMuch, timedOut}, false},
	},
	"mariadb": {
		{"repeat", "SELECT REPEAT('x', 1000000000)", nil, true}, // NULL: longer than max_allowed_packet
		{"row of 48 MB", "SELECT " + strings.Repeat("REPEAT('x', 16000000), ", 3) + "1", []string{tooLong, timedOut}, false},
		{"row of 240 MB", "SELECT " + strings.Repeat("REPEAT('x', 16000000), ", 15) + "1", []string{tooLong, timedOut}, false},
	},
	"postgres": {
		{"repeat", "SELECT repeat('x', 1000000000)", []string{tooLong, timedOut}, false},
		{"one long value", "SELECT repeat('x', 100000000)", []string{tooLong, timedOut}, false},
		{"wide row", "SELECT " + strings.Repeat("repeat('x', 100000000), ", 3) + "1", []string{tooLong, timedOut}, false},
	},
}

// checkHuge checks the answer to h, which took took.
func checkHuge(t *testing.T, h hugeValue, res *mcp.CallToolResult, took time.Duration) {
	t.Helper()
	msg := firstText(res)
	switch {
	case h.want == nil:
	case !res.IsError:
		t.Errorf("%s: want a tool error, got %.300s", h.name, msg)
	case !slices.ContainsFunc(h.want, func(w string) bool { return strings.Contains(msg, w) }):
		t.Errorf("%s: tool error %q says none of %q", h.name, msg, h.want)
	}
	limit := boundsTimeout*11/10 + loadSlack
	if h.quick {
		limit = boundsTimeout / 10
	}
	if took > limit {
		t.Errorf("%s: answered after %v; want within %v (the timeout is %v)", h.name, took, limit, boundsTimeout)
	}
}

func TestLimits_hugeValuesBounded(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *backend) {
		s := startStdio(t, "-dsn", b.dsn, "-timeout", boundsTimeout.String())
		for _, h := range hugeValues[b.kind] {
			start := time.Now()
			res := call(t, s.ClientSession, "sql_query", map[string]any{"sql": h.sql})
			took := time.Since(start)
			checkHuge(t, h, res, took)
			t.Logf("%s %s: answered in %v: %.160s", b.kind, h.name, took.Round(time.Millisecond), firstText(res))
		}
		// The server goes on answering.
		var r queryResult
		ok(t, call(t, s.ClientSession, "sql_query", map[string]any{"sql": "SELECT COUNT(*) FROM orders"}), &r)
		if len(r.Rows) != 1 || r.Rows[0][0] != float64(demoOrders) {
			t.Errorf("the next query: %v", r.Rows)
		}
		if peak := peakRSS(t, s.cmd.Process.Pid); peak > peakRSSBound {
			t.Errorf("the server's peak RSS is %d MiB; want under %d MiB", peak>>20, peakRSSBound>>20)
		}
	})
}

func TestLimits_fourHugeAtOncePeakRSS(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *backend) {
		s := startStdio(t, "-dsn", b.dsn, "-timeout", boundsTimeout.String())
		for _, h := range hugeValues[b.kind] {
			four := h
			four.quick = false // four at once on a loaded machine: within the timeout
			var wg sync.WaitGroup
			took := make([]time.Duration, 4)
			for i := range took {
				wg.Go(func() {
					start := time.Now()
					res := call(t, s.ClientSession, "sql_query", map[string]any{"sql": h.sql})
					took[i] = time.Since(start)
					checkHuge(t, four, res, took[i])
				})
			}
			wg.Wait()
			peak := peakRSS(t, s.cmd.Process.Pid)
			if peak > peakRSSBound {
				t.Errorf("%s, four at once: the server's peak RSS is %d MiB; want under %d MiB", h.name, peak>>20, peakRSSBound>>20)
			}
			t.Logf("%s %s, four at once: answered in %v; peak RSS so far %d MiB", b.kind, h.name, took, peak>>20)
		}
	})
}

// slowInSteps run for ever, each step taking a large value (but within
// the bounds): the timeout must reach the database between steps.
var slowInSteps = map[string]string{
	"sqlite":   "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT SUM(length(randomblob(8000000))) FROM c",
	"mariadb":  "SELECT SUM(LENGTH(REPEAT('x', 8000000))) FROM seq_1_to_1000000000",
	"postgres": "SELECT SUM(length(repeat('x', 8000000))) FROM generate_series(1, 1000000000)",
}

// inOneStep is a statement SQLite runs in one step it cannot interrupt
// (it checks for an interrupt at jumps, and a row of function calls has
// none): sixty calls that each build 16 MB and measure it, in constant
// memory, for far longer than the timeout.
var inOneStep = "SELECT " + strings.Repeat("length(randomblob(16000000)), ", 60) + "1"

func TestLimits_timeoutHoldsWithinTenPercent(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *backend) {
		s := startStdio(t, "-dsn", b.dsn, "-timeout", boundsTimeout.String())
		stmts := map[string]string{"in steps": slowInSteps[b.kind]}
		if b.kind == "sqlite" {
			stmts["in one step"] = inOneStep
		}
		for name, stmt := range stmts {
			start := time.Now()
			res := call(t, s.ClientSession, "sql_query", map[string]any{"sql": stmt})
			took := time.Since(start)
			toolError(t, res, "ran longer than the timeout of 5s")
			if took < boundsTimeout || took > boundsTimeout*11/10+loadSlack {
				t.Errorf("%s: answered after %v; the timeout is %v (10%%: %v)", name, took, boundsTimeout, boundsTimeout*11/10)
			}
			t.Logf("%s %s: cut after %v (timeout %v)", b.kind, name, took.Round(time.Millisecond), boundsTimeout)
		}
		// The server goes on answering, the statement left in the
		// background or not.
		var r queryResult
		ok(t, call(t, s.ClientSession, "sql_query", map[string]any{"sql": "SELECT COUNT(*) FROM orders"}), &r)
		if len(r.Rows) != 1 || r.Rows[0][0] != float64(demoOrders) {
			t.Errorf("the next query: %v", r.Rows)
		}
	})
}

// firstText is the text of res's first block ("" if none).
func firstText(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	tc, _ := res.Content[0].(*mcp.TextContent)
	if tc == nil {
		return ""
	}
	return tc.Text
}

// A long value is cut before it is copied whole: what is shown is what
// cutting the whole value shows.
func TestCellValue_longValueCutAsWhole(t *testing.T) {
	text := bytes.Repeat([]byte("é"), maxCellBytes) // 2 bytes a rune: the cut falls inside one
	blob := bytes.Repeat([]byte{0xff, 0x00}, maxCellBytes)
	for _, v := range [][]byte{text, text[:maxCellBytes+1], text[:maxCellBytes+utf8.UTFMax+2], blob, blob[:maxCellBytes/2+1], blob[:maxCellBytes/2-1]} {
		var want string
		if utf8.Valid(v) {
			want = cut(string(v))
		} else {
			want = cut(`\x` + hex.EncodeToString(v))
		}
		if got := cellValue(v, nil); got != want {
			t.Errorf("a value of %d bytes: %d bytes shown, want %d (%.20q…)", len(v), len(got.(string)), len(want), got)
		}
	}
}
