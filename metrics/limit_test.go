package metrics

import (
	"math"
	"testing"
	"time"
)

// limit(b) is the longest duration whose Seconds() is at most b, so that
// bucketing by duration matches client_golang's bucketing by seconds,
// edges included.
func TestLimit_matchesSecondsComparison(t *testing.T) {
	bounds := append([]float64{0, -1, 1e-9, 1.5e-9, 0.1, 0.3, 1e9, -1e-9, math.MaxFloat64, -math.MaxFloat64}, DefaultBuckets...)
	for i := range 1000 {
		bounds = append(bounds, float64(i)*0.0000137, math.Ldexp(1, i%80-40))
	}
	for _, b := range bounds {
		d := limit(b)
		if b < time.Duration(math.MinInt64).Seconds() {
			if d != math.MinInt64 {
				t.Errorf("limit(%v) = %v, want the shortest duration (none is within)", b, d)
			}
			continue
		}
		if d.Seconds() > b {
			t.Errorf("limit(%v) = %v, whose Seconds() is above the bound", b, d)
		}
		if d < math.MaxInt64 && (d+1).Seconds() <= b {
			t.Errorf("limit(%v) = %v, but %v is within the bound too", b, d, d+1)
		}
	}
}
