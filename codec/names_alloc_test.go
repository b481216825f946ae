//go:build !race

package codec

import "testing"

// TestDuplicateName_allocs: params whose objects have at most smallObject
// names, without escapes, are checked without allocating.
func TestDuplicateName_allocs(t *testing.T) {
	for _, p := range []string{
		`{"name":"get_weather","arguments":{"location":"Paris","units":"metric"}}`,
		`[42,{"a":1,"b":[{"c":2,"d":3}]}]`,
		`{` + manyNames(smallObject) + `}`,
	} {
		v := []byte(p)
		if n := testing.AllocsPerRun(100, func() { DuplicateName(v) }); n != 0 {
			t.Errorf("%.40s: %v allocations, want 0", p, n)
		}
	}
}
