//go:build goexperiment.simd && amd64

package codec

import (
	"math/bits"
	"simd/archsimd"
	"unsafe"
)

// wideStrings: the CPU has AVX2, so plainRun looks at 32 bytes at a time
// (a build with GOEXPERIMENT=simd; see string_wide.go for the others).
var wideStrings = archsimd.X86.AVX2()

// plainRun returns the index of the first byte from d[i] on that is not
// plain (see strSafe), looking 32 bytes at a time; when it finds none
// before fewer than 32 bytes are left, the index where it stopped
// looking. The word-at-a-time loops of the callers go on from there.
func plainRun(d []byte, i int) int {
	if !wideStrings {
		return i
	}
	quote := archsimd.BroadcastInt8x32('"')
	backslash := archsimd.BroadcastInt8x32('\\')
	space := archsimd.BroadcastInt8x32(0x20)
	for len(d)-i >= 32 {
		x := archsimd.LoadInt8x32((*[32]int8)(unsafe.Pointer(&d[i])))
		// Compared as signed bytes, those >= 0x80 (UTF-8 sequences) are
		// below 0x20 with the control characters.
		stop := x.Equal(quote).Or(x.Equal(backslash)).Or(x.Less(space))
		if m := stop.ToBits(); m != 0 {
			return i + bits.TrailingZeros32(m)
		}
		i += 32
	}
	return i
}
