package codec

import "testing"

func TestLimits_withDefaults(t *testing.T) {
	if got := (*Limits)(nil).WithDefaults(); got.MaxHeaderLines != DefaultMaxHeaderLines || got.MaxHeaderBytes != DefaultMaxHeaderBytes {
		t.Errorf("nil: %+v", got)
	}
	for _, n := range []int{0, -1} {
		if got := (&Limits{MaxHeaderLines: n}).WithDefaults(); got.MaxHeaderLines != DefaultMaxHeaderLines {
			t.Errorf("MaxHeaderLines %d: got %d, want %d", n, got.MaxHeaderLines, DefaultMaxHeaderLines)
		}
	}
	if got := (&Limits{MaxHeaderLines: 3}).WithDefaults(); got.MaxHeaderLines != 3 {
		t.Errorf("MaxHeaderLines 3: got %d", got.MaxHeaderLines)
	}
}
