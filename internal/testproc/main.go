package testproc

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// Binary is a command built once, on first use, for the tests of one
// test binary; Main's after removes it.
type Binary struct {
	pkg    string
	once   sync.Once
	path   string
	remove func()
	err    error
}

// NewBinary returns the command of the main package pkg (an import
// path), not yet built.
func NewBinary(pkg string) *Binary { return &Binary{pkg: pkg} }

// Path builds the command the first time it is called and returns the
// program's path; the test fails if it does not build.
func (b *Binary) Path(t testing.TB) string {
	t.Helper()
	b.once.Do(func() { b.path, b.remove, b.err = Build(b.pkg) })
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// Remove deletes the built command, if it was built.
func (b *Binary) Remove() {
	if b.remove != nil {
		b.remove()
	}
}

// fasthttpCleaner is fasthttp's idle-worker cleaner (see Main).
var fasthttpCleaner = goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2")

// Main runs a package's tests (a TestMain's whole body), then each of
// after (removing built commands, stopping servers), and fails the run,
// when the tests passed, if they left running a goroutine that was not
// running before them (goleak; ants' default pool, say, starts when
// the package is loaded). fasthttp's idle-worker cleaner is not counted:
// it notices its server stopped only when a sleep of up to 10s ends.
func Main(m *testing.M, after ...func()) {
	leaks := goleak.IgnoreCurrent()
	code := m.Run()
	for _, f := range after {
		f()
	}
	if code == 0 {
		if err := goleak.Find(leaks, fasthttpCleaner); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
