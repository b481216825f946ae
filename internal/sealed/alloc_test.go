//go:build !race

package sealed

import (
	"strings"
	"testing"
)

// Seal allocates the token (its binary form and its text); Open the
// payload it returns; a token over the bound is refused before it is
// decoded, allocating only the error.
func TestRing_allocations(t *testing.T) {
	r := newRing(t, nil)
	payload := make([]byte, 1<<10)
	tok := seal(t, r, string(payload), testBinding)
	huge := strings.Repeat("A", 1<<20)
	for name, c := range map[string]struct {
		max float64
		f   func()
	}{
		"Seal":                           {2, func() { _, _ = r.Seal(payload, testBinding) }},
		"Open":                           {1, func() { _, _ = r.Open(tok, testBinding) }},
		"Open of a token over the bound": {1, func() { _, _ = r.Open(huge, testBinding) }},
	} {
		if got := testing.AllocsPerRun(100, c.f); got > c.max {
			t.Errorf("%s: %v allocations, want at most %v", name, got, c.max)
		}
	}
}
