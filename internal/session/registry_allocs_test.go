//go:build !race

package session

import "testing"

// TestRegistry_withoutLimitsCountsNothing: a registry with no limits and
// no shared Quota adds and removes a session without allocating (no
// slot), once its map has room; one with a limit still counts.
func TestRegistry_withoutLimitsCountsNothing(t *testing.T) {
	var r Registry[int, *fake]
	f := &fake{r: &r, key: 1}
	if n := testing.AllocsPerRun(100, func() {
		if err := r.Add(1, f, nil); err != nil {
			t.Fatal(err)
		}
		r.Remove(1, f)
	}); n != 0 {
		t.Errorf("%v allocations per session added and removed, want 0", n)
	}
	limited := Registry[int, *fake]{Max: 1}
	if err := limited.Add(1, f, nil); err != nil {
		t.Fatal(err)
	}
	if err := limited.Add(2, f, nil); err == nil {
		t.Error("a registry of Max 1 took a second session")
	}
}
