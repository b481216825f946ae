package main

import (
	"strconv"
	"testing"
)

// TestDecimal: the counter's text is strconv's for every value it passes,
// across each change of width.
func TestDecimal(t *testing.T) {
	d := newDecimal()
	for n := uint64(1); n <= 100_001; n++ {
		if got := string(d.text()); got != strconv.FormatUint(n, 10) {
			t.Fatalf("at %d: %q", n, got)
		}
		d.inc()
	}
}
