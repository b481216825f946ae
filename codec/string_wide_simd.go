//go:build goexperiment.simd && amd64

package codec

// The wide string loop: 32 bytes per step with AVX2.
//
// Fast path: a block of 32 plain bytes (no quote, backslash, control
// character or non-ASCII byte) costs three compares and a mask test.
// A block holding non-ASCII bytes is validated as UTF-8 whole, with
// Keiser and Lemire's lookup tables (utf8Errors), and the loop goes on;
// a valid escape is stepped over in place and the loop goes on after it.
// Only an error, a control character, or the last 31 bytes of the frame
// hand the string back to the byte loop of scanStringSlow.
//
// Invariants: every byte before i is valid string content; prev holds
// the 32 bytes before d[i] when they are string content not yet closed
// (a multi-byte sequence may straddle the two blocks), otherwise ASCII
// (zero); d[start:i] is the part this call validated.

import (
	"math/bits"
	"simd/archsimd"
	"unsafe"
)

// wideStrings: the CPU has AVX2, so scanStringSlow scans 32 bytes at a
// time with stringWide (a build with GOEXPERIMENT=simd; see
// string_wide.go for the others).
var wideStrings = archsimd.X86.AVX2()

// stringWide scans the string body from d[i] (inside the body, at the
// start of a character, no escape pending) 32 bytes at a time. It
// returns the index just past the closing quote and whether the body
// from i holds escapes; or, where it cannot decide, ^k < 0: d[i:k] is
// valid content, k is the start of a character, and the byte loop
// resumes at d[k] (an error, or fewer than 32 bytes left).
func stringWide(d []byte, i int) (int, bool) {
	start := i
	esc := false
	quote := archsimd.BroadcastInt8x32('"')
	backslash := archsimd.BroadcastInt8x32('\\')
	space := archsimd.BroadcastInt8x32(0x20)
	var zero, prev archsimd.Uint8x32
	carry := false // prev ends with non-ASCII: a sequence may go on in d[i:]
	for len(d)-i >= 32 {
		x := archsimd.LoadInt8x32((*[32]int8)(unsafe.Pointer(&d[i])))
		// Compared as signed bytes, those >= 0x80 (UTF-8 sequences) are
		// below 0x20 with the control characters.
		m := x.Equal(quote).Or(x.Equal(backslash)).Or(x.Less(space)).ToBits()
		if m == 0 && !carry {
			prev = x.AsUint8x32()
			i += 32
			continue
		}
		hi := x.Less(zero.AsInt8x32()).ToBits() // non-ASCII
		stop := m &^ hi                         // quote, backslash, control
		if hi != 0 || carry {
			bad := utf8Errors(x.AsUint8x32(), prev).NotEqual(zero).ToBits()
			// The content ends at the first stop, which is ASCII: an
			// error flagged there is a sequence it cuts short.
			if bad&(stop^(stop-1)) != 0 {
				return ^charStart(d, start, i), esc
			}
			carry = hi>>29 != 0
		}
		prev = x.AsUint8x32()
		if stop == 0 {
			i += 32
			continue
		}
		i += bits.TrailingZeros32(stop)
		switch d[i] {
		case '"':
			return i + 1, esc
		case '\\':
			if n := escapeLen(d, i); n > 0 {
				esc = true
				i += n
				prev, carry = zero, false
				continue
			}
		}
		return ^i, esc // a control character or a bad escape
	}
	return ^charStart(d, start, i), esc
}

// charStart returns the start of the character that holds d[i] or, when
// d[i-1] is not ASCII, of the run of non-ASCII bytes before d[i] (a
// sequence may be cut short there), but not before start.
func charStart(d []byte, start, i int) int {
	for i > start && d[i-1] >= 0x80 {
		i--
	}
	return i
}

// escapeLen returns the length of the valid escape sequence at d[i] ==
// '\\' (2, or 6 for \uXXXX), or 0 if there is none.
func escapeLen(d []byte, i int) int {
	if i+1 < len(d) && simpleEscape[d[i+1]] {
		return 2
	}
	if len(d)-i >= 6 && d[i+1] == 'u' && hexVal[d[i+2]]|hexVal[d[i+3]]|hexVal[d[i+4]]|hexVal[d[i+5]] <= 0xf {
		return 6
	}
	return 0
}

// utf8Errors returns a vector whose byte k is not zero if the UTF-8 in x
// is wrong at byte k, given the block prev before it: Keiser and Lemire,
// "Validating UTF-8 in less than one instruction per byte" (2021), as in
// simdjson and simdutf. Three 16-entry tables, looked up by the high and
// low nibbles of the previous byte and the high nibble of this one, flag
// the faults that two bytes show (too short, too long, overlong, above
// U+10FFFF, surrogate, a continuation without a lead); a fourth check
// wants a continuation wherever a 3- or 4-byte lead two or three bytes
// back asks for one. A sequence cut short at the end of x shows in the
// next block (or at the ASCII byte after it).
func utf8Errors(x, prev archsimd.Uint8x32) archsimd.Uint8x32 {
	low := archsimd.BroadcastUint8x32(0x0f)
	// The 32 bytes from the middle of prev to the middle of x, so that
	// the byte shifts within 16-byte groups bring in prev's last bytes.
	mid := prev.Select128FromPair(1, 2, x)
	prev1 := x.ConcatShiftBytesRightGrouped(15, mid)
	prev2 := x.ConcatShiftBytesRightGrouped(14, mid)
	prev3 := x.ConcatShiftBytesRightGrouped(13, mid)
	high1 := prev1.AsUint16x16().ShiftAllRight(4).AsUint8x32().And(low)
	high := x.AsUint16x16().ShiftAllRight(4).AsUint8x32().And(low)
	special := archsimd.LoadUint8x32(&utf8Byte1High).PermuteOrZeroGrouped(high1.AsInt8x32()).
		And(archsimd.LoadUint8x32(&utf8Byte1Low).PermuteOrZeroGrouped(prev1.And(low).AsInt8x32())).
		And(archsimd.LoadUint8x32(&utf8Byte2High).PermuteOrZeroGrouped(high.AsInt8x32()))
	// Saturating subtraction leaves the high bit set only for a byte
	// >= 0xe0 two back or >= 0xf0 three back.
	must23 := prev2.SubSaturated(archsimd.BroadcastUint8x32(0xe0 - 0x80)).
		Or(prev3.SubSaturated(archsimd.BroadcastUint8x32(0xf0 - 0x80))).
		And(archsimd.BroadcastUint8x32(0x80))
	return special.Xor(must23)
}

// The fault bits of utf8Errors' tables: which byte pairs show them.
const (
	u8TooShort   = 1 << 0 // 11______ 0_______ or 11______ 11______
	u8TooLong    = 1 << 1 // 0_______ 10______
	u8Overlong3  = 1 << 2 // 11100000 100_____
	u8TooLarge   = 1 << 3 // 11110100 1001____, 11110100 101_____, 11110101+ 1001____ or 101_____
	u8Surrogate  = 1 << 4 // 11101101 101_____
	u8Overlong2  = 1 << 5 // 1100000_ 10______
	u8TooLarge1K = 1 << 6 // 11110101+ 1000____
	u8Overlong4  = 1 << 6 // 11110000 1000____
	u8TwoConts   = 1 << 7 // 10______ 10______ (or a continuation a lead asked for: must23)
	u8Carry      = u8TooShort | u8TooLong | u8TwoConts
)

// utf8Byte1High, utf8Byte1Low and utf8Byte2High are utf8Errors' tables,
// 16 entries repeated for each 16-byte group of a vector.
var (
	utf8Byte1High = dup16([16]byte{
		// 0_______: ASCII
		u8TooLong, u8TooLong, u8TooLong, u8TooLong, u8TooLong, u8TooLong, u8TooLong, u8TooLong,
		// 10______: continuation
		u8TwoConts, u8TwoConts, u8TwoConts, u8TwoConts,
		u8TooShort | u8Overlong2,                             // 1100____
		u8TooShort,                                           // 1101____
		u8TooShort | u8Overlong3 | u8Surrogate,               // 1110____
		u8TooShort | u8TooLarge | u8TooLarge1K | u8Overlong4, // 1111____
	})
	utf8Byte1Low = dup16([16]byte{
		u8Carry | u8Overlong3 | u8Overlong2 | u8Overlong4, // ____0000
		u8Carry | u8Overlong2,                             // ____0001
		u8Carry,                                           // ____0010
		u8Carry,                                           // ____0011
		u8Carry | u8TooLarge,                              // ____0100
		u8Carry | u8TooLarge | u8TooLarge1K,               // ____0101
		u8Carry | u8TooLarge | u8TooLarge1K,
		u8Carry | u8TooLarge | u8TooLarge1K,
		u8Carry | u8TooLarge | u8TooLarge1K, // ____1000
		u8Carry | u8TooLarge | u8TooLarge1K,
		u8Carry | u8TooLarge | u8TooLarge1K,
		u8Carry | u8TooLarge | u8TooLarge1K,
		u8Carry | u8TooLarge | u8TooLarge1K,
		u8Carry | u8TooLarge | u8TooLarge1K | u8Surrogate, // ____1101
		u8Carry | u8TooLarge | u8TooLarge1K,
		u8Carry | u8TooLarge | u8TooLarge1K,
	})
	utf8Byte2High = dup16([16]byte{
		// ________ 0_______: ASCII
		u8TooShort, u8TooShort, u8TooShort, u8TooShort, u8TooShort, u8TooShort, u8TooShort, u8TooShort,
		u8TooLong | u8Overlong2 | u8TwoConts | u8Overlong3 | u8TooLarge1K | u8Overlong4, // 1000____
		u8TooLong | u8Overlong2 | u8TwoConts | u8Overlong3 | u8TooLarge,                 // 1001____
		u8TooLong | u8Overlong2 | u8TwoConts | u8Surrogate | u8TooLarge,                 // 101_____
		u8TooLong | u8Overlong2 | u8TwoConts | u8Surrogate | u8TooLarge,
		// ________ 11______: a lead
		u8TooShort, u8TooShort, u8TooShort, u8TooShort,
	})
)

// dup16 returns t twice: a table for both 16-byte groups of a vector.
func dup16(t [16]byte) (v [32]byte) {
	copy(v[:16], t[:])
	copy(v[16:], t[:])
	return v
}
