//go:build goexperiment.simd && amd64

package codec

// The wide string loop with AVX-512 (and VBMI, for byte permutes across
// the vector, and GFNI, for bit shuffles within bytes): a 64-byte block is one vector, so the compares give their
// masks directly, 64 bits at once, and the UTF-8 check runs once per
// block. The scalar half is stringWide's; see string_wide_simd.go.

import (
	"encoding/binary"
	"simd/archsimd"
	"unsafe"
)

// stops64 returns the masks of the 64 bytes of x that are '"', '\\', and
// a control character or not ASCII (>= 0x80): x is plain (see strSafe)
// if all three are zero.
func stops64(x archsimd.Uint8x64) (quote, bs, low uint64) {
	// Compared as signed bytes, those >= 0x80 (UTF-8 sequences) are
	// below 0x20 with the control characters.
	return x.Equal(vec64(&splatQuote)).ToBits(), x.Equal(vec64(&splatBackslash)).ToBits(),
		x.AsInt8x64().Less(vec64(&splatSpace).AsInt8x64()).ToBits()
}

// masks64 is halfMasks for a 64-byte block, but for the backslashes and
// quotes stops64 found.
func masks64(x, utf8 archsimd.Uint8x64) (fine, u, notEsc, notHex uint64) {
	var zero archsimd.Uint8x64
	class := vec64(&escapeHigh).Permute(highNibbles(x)).And(vec64(&escapeLow).Permute(x))
	fine = utf8.Or(class.And(vec64(&splatControl))).Equal(zero).ToBits()
	u = x.Equal(vec64(&splatU)).ToBits()
	notEsc = class.And(vec64(&splatEscape)).Equal(zero).ToBits()
	notHex = class.And(vec64(&splatHex)).Equal(zero).ToBits()
	return fine, u, notEsc, notHex
}

// utf8Errors64 is utf8Errors for a 64-byte block: the bytes before each
// of x's come from one permute of prev and x each.
func utf8Errors64(x, prev archsimd.Uint8x64) archsimd.Uint8x64 {
	prev1 := prev.ConcatPermute(x, vec64(&back1))
	prev2 := prev.ConcatPermute(x, vec64(&back2))
	prev3 := prev.ConcatPermute(x, vec64(&back3))
	special := vec64(&utf8Byte1High).Permute(highNibbles(prev1)).
		And(vec64(&utf8Byte1Low).Permute(prev1)).
		And(vec64(&utf8Byte2High).Permute(highNibbles(x)))
	must23 := prev2.SubSaturated(vec64(&splat3)).Or(prev3.SubSaturated(vec64(&splat4))).And(vec64(&splatHigh))
	return special.Xor(must23)
}

// The 16-entry tables, repeated in each 16-byte group, are looked up
// with Permute (a byte permute across the vector, VBMI), which reads the
// low 6 bits of an index: a byte itself is an index to its low nibble's
// entry, and its high nibble comes from one instruction (GFNI).

// highNibbles returns the high nibble of each byte of x: an affine
// transform of its bits (a matrix of 8 by 8 bits, per byte), whose rows
// for result bits 0 to 3 pick bits 4 to 7, the rest zero.
func highNibbles(x archsimd.Uint8x64) archsimd.Uint8x64 {
	return x.GaloisFieldAffineTransform(vec64(&shiftRight4).AsUint64x8(), 0)
}

// shiftRight4 is highNibbles' matrix, once per 8 bytes: row k (for
// result bit 7-k) is byte k.
var shiftRight4 = func() (v [64]byte) {
	for k := 0; k < 64; k += 8 {
		binary.LittleEndian.PutUint64(v[k:], 0x10_20_40_80_00_00_00_00)
	}
	return v
}()

// back1, back2 and back3 index, in prev and x side by side (128 bytes),
// the byte 1, 2 or 3 before each of x's.
var back1, back2, back3 = backIndex(1), backIndex(2), backIndex(3)

func backIndex(n int) (v [64]byte) {
	for k := range v {
		v[k] = byte(64 + k - n)
	}
	return v
}

// load64x1 returns the 64 bytes from d[i] as one vector, zeros after
// the end of d.
func load64x1(d []byte, i int) archsimd.Uint8x64 {
	if len(d)-i >= 64 {
		// No slice of d to make: one bounds check, on d[i].
		return archsimd.LoadUint8x64((*[64]byte)(unsafe.Pointer(&d[i])))
	}
	return loadTail64(d[i:])
}

// loadTail64 loads the last bytes of a frame, zeros after them.
//
//go:noinline
func loadTail64(d []byte) archsimd.Uint8x64 { return archsimd.LoadUint8x64SlicePart(d) }

// stringWide512 is stringWide with AVX-512.
func stringWide512(d []byte, i int) (int, bool) {
	start := i
	var (
		prev archsimd.Uint8x64
		c    wideCarry
	)
	for i < len(d) {
		x := load64x1(d, i) // zeros after d
		quotes, bs, low := stops64(x)
		if quotes|bs|low == 0 && c.pending == 0 {
			prev = x
			i += 64
			continue
		}
		fine, uChar, notEsc, notHex := masks64(x, utf8Errors64(x, prev))
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
