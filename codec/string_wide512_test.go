//go:build goexperiment.simd && amd64

package codec

import (
	"simd/archsimd"
	"testing"
)

// TestHighNibbles holds highNibbles' affine transform to a shift, for
// every byte value in every lane.
func TestHighNibbles(t *testing.T) {
	if !wide512 {
		t.Skip("no AVX-512 with VBMI and GFNI")
	}
	for base := 0; base < 256; base += 64 {
		var in, out [64]byte
		for k := range in {
			in[k] = byte(base + k)
		}
		highNibbles(archsimd.LoadUint8x64(&in)).Store(&out)
		for k, c := range in {
			if out[k] != c>>4 {
				t.Fatalf("highNibbles(%#x) = %#x, want %#x", c, out[k], c>>4)
			}
		}
	}
}
