//go:build !race

package codec

import (
	"strings"
	"testing"
)

func TestScanner_allocs(t *testing.T) {
	batch := "[" + strings.TrimSuffix(strings.Repeat(mcpSmallRequest(7)+",", 10), ",") + "]"
	tests := []struct {
		name  string
		frame string
		n     int
	}{
		{"request", mcpSmallRequest(1), 1},
		{"escapedNames", `{"jsonrpc":"\u0032.0","m\u0065thod":"\u0072pc.x","id":"\u00e9"}`, 1},
		{"toolsList", mcpToolsList(3), 1},
		{"batch10", batch, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewScanner(nil)
			frame := []byte(tt.frame)
			// AllocsPerRun warms up with one call first, so the batch's
			// message slice has grown to size before counting starts.
			allocs := testing.AllocsPerRun(100, func() {
				msgs, _, err := s.Scan(frame)
				if err != nil || len(msgs) != tt.n {
					t.Fatalf("Scan: %d messages, %v", len(msgs), err)
				}
			})
			if allocs != 0 {
				t.Errorf("Scan allocated %v times per call, want 0", allocs)
			}
			if allocs := testing.AllocsPerRun(100, func() { s.Valid(frame) }); allocs != 0 {
				t.Errorf("Valid allocated %v times per call, want 0", allocs)
			}
		})
	}
}

func TestScanner_firstRequestDoesNotAllocate(t *testing.T) {
	frame := []byte(mcpSmallRequest(1))
	s := NewScanner(nil)
	// Not even the first call: NewScanner sized the message slice for one.
	if _, _, err := s.Scan(frame); err != nil {
		t.Fatal(err)
	}
	s = NewScanner(nil)
	var err error
	allocs := testing.AllocsPerRun(1, func() {
		s = NewScanner(nil)
		_, _, err = s.Scan(frame)
	})
	if err != nil {
		t.Fatal(err)
	}
	// NewScanner: the Scanner, its stack and its message slice.
	if allocs > 3 {
		t.Errorf("NewScanner+Scan allocated %v times, want at most 3", allocs)
	}
}
