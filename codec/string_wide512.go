//go:build goexperiment.simd && amd64

package codec

// The wide string loop with AVX-512 (and VBMI, for byte permutes across
// the vector, and GFNI, for bit shuffles within bytes): a 64-byte block
// is one vector, so the compares give their masks directly, 64 bits at
// once, and the UTF-8 check runs once per block. The scalar half is
// stringWide's; see string_wide_simd.go.
//
// Its pace was set by loads: a 64-byte load takes the load ports a whole
// cycle on the AMD EPYC measured, and each constant vector is one (Go
// keeps none in a register across the loop by itself). So the loop loads
// six constants a block where it loaded nineteen: six vectors are loaded
// once, before the loop, and kept in registers — the plain test's three
// (which test the escape classes too, see classEscape) and must23's
// three (the last of which tests classControl); the three tables looked
// up by a high nibble are one; the bytes before x come from one permute
// of whole words and three shifts within 16-byte groups. Each step
// measured: a 64 KiB prose string 7.9 -> 6.5 us. (A seventh kept vector
// is slower, more spill: Go gives vectors 15 registers.)

import (
	"encoding/binary"
	"simd/archsimd"
	"unsafe"
)

// stops64 returns the masks of the 64 bytes of x that are '"', '\\', and
// a control character or not ASCII (>= 0x80), given the vectors of '"',
// '\\' and ' ': x is plain (see strSafe) if all three are zero.
func stops64(x, quote, backslash archsimd.Uint8x64, space archsimd.Int8x64) (quotes, bs, low uint64) {
	// Compared as signed bytes, those >= 0x80 (UTF-8 sequences) are
	// below 0x20 with the control characters.
	return x.Equal(quote).ToBits(), x.Equal(backslash).ToBits(), x.AsInt8x64().Less(space).ToBits()
}

// masks64 is halfMasks for a 64-byte block, but for the backslashes and
// quotes stops64 found; quote, backslash and high are the kept vectors of
// '"', '\\' and 0x80, which test the classes (see classEscape).
func masks64(x, utf8, quote, backslash, high archsimd.Uint8x64) (fine, u, notEsc, notHex uint64) {
	var zero archsimd.Uint8x64
	class := vec64(&highTables).Permute(highNibbles(x, 0x10)).And(vec64(&escapeLow).Permute(x))
	fine = utf8.Or(class.And(high)).Equal(zero).ToBits()
	u = x.Equal(vec64(&splatU)).ToBits()
	notEsc = class.And(backslash).Equal(zero).ToBits()
	notHex = class.And(quote).Equal(zero).ToBits()
	return fine, u, notEsc, notHex
}

// utf8Errors64 is utf8Errors for a 64-byte block, given the kept
// vectors of splat3, splat4 and splatHigh: the bytes before each of x's
// come from mid, the 64 bytes from the middle of prev's last 16-byte
// group to the middle of x's last (one permute of 8-byte words), shifted
// into x's groups.
func utf8Errors64(x, prev, third, fourth, high archsimd.Uint8x64) archsimd.Uint8x64 {
	mid := prev.AsUint64x8().ConcatPermute(x.AsUint64x8(), vec64(&midIndex).AsUint64x8()).AsUint8x64()
	prev1 := x.ConcatShiftBytesRightGrouped(15, mid)
	prev2 := x.ConcatShiftBytesRightGrouped(14, mid)
	prev3 := x.ConcatShiftBytesRightGrouped(13, mid)
	special := vec64(&highTables).Permute(highNibbles(prev1, 0x20)).
		And(vec64(&utf8Byte1Low).Permute(prev1)).
		And(vec64(&highTables).Permute(highNibbles(x, 0)))
	must23 := prev2.SubSaturated(third).Or(prev3.SubSaturated(fourth)).And(high)
	return special.Xor(must23)
}

// The 16-entry tables, repeated in each 16-byte group, are looked up
// with Permute (a byte permute across the vector, VBMI), which reads the
// low 6 bits of an index: a byte itself is an index to its low nibble's
// entry, and its high nibble comes from one instruction (GFNI).

// highNibbles returns the high nibble of each byte of x, plus (0x00,
// 0x10, 0x20: which of highTables' tables it indexes): an affine
// transform of its bits (a matrix of 8 by 8 bits, per byte), whose rows
// for result bits 0 to 3 pick bits 4 to 7, the rest zero, and whose
// constant is plus.
func highNibbles(x archsimd.Uint8x64, plus uint8) archsimd.Uint8x64 {
	return x.GaloisFieldAffineTransform(vec64(&shiftRight4).AsUint64x8(), plus)
}

// highTables are the tables looked up by a high nibble, 16 entries each:
// utf8Byte2High, escapeHigh and utf8Byte1High.
var highTables = func() (v [64]byte) {
	copy(v[0x00:], utf8Byte2High[:16])
	copy(v[0x10:], escapeHigh[:16])
	copy(v[0x20:], utf8Byte1High[:16])
	return v
}()

// shiftRight4 is highNibbles' matrix, once per 8 bytes: row k (for
// result bit 7-k) is byte k.
var shiftRight4 = words(0x10_20_40_80_00_00_00_00, 0)

// midIndex picks utf8Errors64's mid from prev and x side by side: prev's
// last two words, then x's first six.
var midIndex = words(6, 1)

// words returns 8 little-endian words: w, w+step, w+2*step...
func words(w, step uint64) (v [64]byte) {
	for k := 0; k < 64; k += 8 {
		binary.LittleEndian.PutUint64(v[k:], w)
		w += step
	}
	return v
}

// load64x1 returns the 64 bytes from d[i] (i < len(d)) as one vector,
// zeros after the end of d.
func load64x1(d []byte, i int) archsimd.Uint8x64 {
	// No slice of d to make: one bounds check, on d[i].
	p := (*[64]byte)(unsafe.Pointer(&d[i]))
	if n := len(d) - i; n < 64 {
		// A masked load: the bytes past d are neither read nor faulted on.
		return archsimd.LoadMaskedUint8x64(p, archsimd.Mask8x64FromBits(^uint64(0)>>(64-n)))
	}
	return archsimd.LoadUint8x64(p)
}

// stringWide512 is stringWide with AVX-512.
func stringWide512(d []byte, i int) (int, bool) {
	start := i
	quote, backslash, space := vec64(&splatQuote), vec64(&splatBackslash), vec64(&splatSpace).AsInt8x64()
	third, fourth, high := vec64(&splat3), vec64(&splat4), vec64(&splatHigh)
	var (
		prev archsimd.Uint8x64
		c    wideCarry
	)
	for i < len(d) {
		x := load64x1(d, i) // zeros after d
		quotes, bs, low := stops64(x, quote, backslash, space)
		if quotes|bs|low == 0 && c.pending == 0 {
			prev = x
			i += 64
			continue
		}
		fine, uChar, notEsc, notHex := masks64(x, utf8Errors64(x, prev, third, fourth, high), quote, backslash, high)
		prev = x
		escaped, hex, end := c.step(bs, quotes, uChar)
		// If the string goes on, the block has no control character,
		// so low's last bit says whether its last byte is >= 0x80.
		if j := c.done(i, ^fine|escaped&notEsc|hex&notHex, bs, end, low>>63); j != 0 {
			return c.result(start, j)
		}
		i += 64
	}
	return ^start, false
}
