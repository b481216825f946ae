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
		var out [64]byte
		highNibbles(archsimd.LoadUint8x64((*[64]byte)(everyByte[base:])), 0).Store(&out)
		for k, h := range out {
			if c := byte(base + k); h != c>>4 {
				t.Fatalf("highNibbles(%#x) = %#x, want %#x", c, h, c>>4)
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
		x := archsimd.LoadUint8x64((*[64]byte)(everyByte[base:]))
		fine, u, notEsc, notHex := masks64(x, zero, vec64(&splatQuote), vec64(&splatBackslash), vec64(&splatHigh))
		for k := range 64 {
			c := byte(base + k)
			bit := func(m uint64) bool { return m>>k&1 != 0 }
			escape, hex, control := classesOf(c)
			if bit(fine) == control || bit(u) != (c == 'u') || bit(notEsc) == escape || bit(notHex) == hex {
				t.Errorf("%q: fine %v, u %v, notEsc %v, notHex %v", c, bit(fine), bit(u), bit(notEsc), bit(notHex))
			}
		}
	}
}
