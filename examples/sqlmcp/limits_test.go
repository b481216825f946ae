package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The limits: a statement past the timeout is cancelled (in the
// database too), and a result of a million rows is cut at the cap
// without the server holding it.

// slowStatements run for ever, or far longer than the tests' timeout.
var slowStatements = map[string]string{
	"sqlite":   "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c",
	"mariadb":  "SELECT SLEEP(60)",
	"postgres": "SELECT pg_sleep(60)",
}

// stillRunning counts the statements like pattern the database is
// running (-1: it cannot tell).
var stillRunning = map[string]string{
	"mariadb":  "SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE 'SELECT SLEEP(60)%'",
	"postgres": "SELECT COUNT(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'SELECT pg_sleep(60)%'",
}

func TestLimits_statementTimeout(t *testing.T) {
	const timeout = time.Second
	forEachBackend(t, func(t *testing.T, b *backend) {
		s := startStdio(t, "-dsn", b.dsn, "-timeout", timeout.String())
		start := time.Now()
		res := call(t, s.ClientSession, "sql_query", map[string]any{"sql": slowStatements[b.kind]})
		took := time.Since(start)
		toolError(t, res, "ran longer than the timeout of 1s and was cancelled")
		if took < timeout || took > timeout+2*time.Second {
			t.Errorf("answered after %v; the timeout is %v", took, timeout)
		}
		t.Logf("%s: cancelled %v after the timeout", b.kind, (took - timeout).Round(time.Millisecond))

		// The database stopped it too.
		if q, ok := stillRunning[b.kind]; ok {
			deadline := time.Now().Add(3 * time.Second)
			for {
				var n int
				if err := b.db.rw.QueryRowContext(context.Background(), q).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the database still runs %d such statements 3s after the timeout", n)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		// And the server goes on answering at once.
		start = time.Now()
		var r queryResult
		ok(t, call(t, s.ClientSession, "sql_query", map[string]any{"sql": "SELECT COUNT(*) FROM orders"}), &r)
		if d := time.Since(start); d > timeout/2 {
			t.Errorf("the next query took %v", d)
		}
	})
}

// millionRows yields 10⁶ rows of about 110 bytes.
var millionRows = map[string]string{
	"sqlite":   "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) SELECT x, printf('%0100d', x) AS pad FROM c",
	"mariadb":  "SELECT seq AS x, REPEAT('x', 100) AS pad FROM seq_1_to_1000000",
	"postgres": "SELECT g AS x, repeat('x', 100) AS pad FROM generate_series(1, 1000000) AS g",
}

func TestLimits_millionRowsCapped(t *testing.T) {
	const maxRows = 1000
	forEachBackend(t, func(t *testing.T, b *backend) {
		s := startStdio(t, "-dsn", b.dsn, "-max-rows", strconv.Itoa(maxRows), "-timeout", "60s")
		var r queryResult
		// The statement does yield a million rows.
		ok(t, call(t, s.ClientSession, "sql_query", map[string]any{"sql": "SELECT COUNT(*) FROM (" + millionRows[b.kind] + ") AS t"}), &r)
		if len(r.Rows) != 1 || r.Rows[0][0] != float64(1e6) {
			t.Fatalf("the generator yields %v rows", r.Rows)
		}
		before := peakRSS(t, s.cmd.Process.Pid)
		start := time.Now()
		ok(t, call(t, s.ClientSession, "sql_query", map[string]any{"sql": millionRows[b.kind], "max_rows": 10 * maxRows}), &r)
		took := time.Since(start)
		after := peakRSS(t, s.cmd.Process.Pid)
		if len(r.Rows) != maxRows || !r.Truncated || r.Rows[maxRows-1][0] != float64(maxRows) {
			t.Fatalf("%d rows, truncated %v; want %d and true", len(r.Rows), r.Truncated, maxRows)
		}
		// The whole result is over 100 MB; the server's peak may grow by
		// what 1000 rows and their encoding take, not by that.
		const bound = 32 << 20
		if after-before > bound {
			t.Errorf("the server's peak RSS grew by %d MiB (from %d to %d MiB) for a capped result", (after-before)>>20, before>>20, after>>20)
		}
		t.Logf("%s: 10⁶ rows capped at %d in %v; peak RSS %d MiB before, %d MiB after", b.kind, maxRows, took.Round(time.Millisecond), before>>20, after>>20)
		// The statement stopped past the cap took its connection down
		// with it, for some drivers: the pool goes on all the same.
		ok(t, call(t, s.ClientSession, "sql_query", map[string]any{"sql": "SELECT COUNT(*) FROM orders"}), &r)
		if len(r.Rows) != 1 || r.Rows[0][0] != float64(demoOrders) {
			t.Errorf("the next query: %v", r.Rows)
		}
	})
}

// peakRSS is the process's peak resident set size (VmHWM), in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc to measure memory with: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}
