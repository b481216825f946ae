package testproc

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// ChromiumPath returns the path of the chromium command (the Debian
// package chromium), or skips the test without it — fails it instead when
// the environment says MCPWIRE_CHROMIUM=required.
func ChromiumPath(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("MCPWIRE_CHROMIUM") == "required" {
			t.Fatalf("MCPWIRE_CHROMIUM=required but: %v", err)
		}
		t.Skip("no chromium (Debian package chromium); MCPWIRE_CHROMIUM=required makes this a failure")
	}
	return bin
}

// Chromium runs headless Chromium (bin, from ChromiumPath) on a page with
// a fresh profile and the given flags (--dump-dom, --screenshot=…), within
// a minute, and returns what it wrote to its standard output and the
// console messages the page logged, one a line.
func Chromium(t testing.TB, bin, page string, flags ...string) (stdout, console string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	args := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0",
	}, flags...)
	cmd := exec.CommandContext(ctx, bin, append(args, page)...)
	inOwnGroup(cmd) // a timeout ends Chromium's helper processes too
	cmd.WaitDelay = 5 * time.Second
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v (context: %v)\n%s", strings.Join(flags, " "), err, ctx.Err(), stderr.String())
	}
	var b strings.Builder
	for line := range strings.Lines(stderr.String()) {
		if strings.Contains(line, "CONSOLE") {
			b.WriteString(line)
		}
	}
	return out.String(), b.String()
}
