//go:build goexperiment.simd && amd64

package codec

import (
	"simd/archsimd"
	"strings"
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
		highNibbles(archsimd.LoadUint8x64(&in), 0).Store(&out)
		for k, c := range in {
			if out[k] != c>>4 {
				t.Fatalf("highNibbles(%#x) = %#x, want %#x", c, out[k], c>>4)
			}
		}
	}
}

// TestMasks64 holds masks64's classes to what they stand for, for every
// byte.
func TestMasks64(t *testing.T) {
	if !wide512 {
		t.Skip("no AVX-512 with VBMI and GFNI")
	}
	var zero archsimd.Uint8x64
	for base := 0; base < 256; base += 64 {
		var in [64]byte
		for k := range in {
			in[k] = byte(base + k)
		}
		fine, u, notEsc, notHex := masks64(archsimd.LoadUint8x64(&in), zero, vec64(&splatQuote), vec64(&splatBackslash), vec64(&splatHigh))
		for k, c := range in {
			bit := func(m uint64) bool { return m>>k&1 != 0 }
			isHex := '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f'
			if bit(fine) != (c >= 0x20) || bit(u) != (c == 'u') ||
				bit(notEsc) != (strings.IndexByte(`"\/bfnrtu`, c) < 0) || bit(notHex) != !isHex {
				t.Errorf("%q: fine %v, u %v, notEsc %v, notHex %v", c, bit(fine), bit(u), bit(notEsc), bit(notHex))
			}
		}
	}
}
