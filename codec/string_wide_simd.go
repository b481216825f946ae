//go:build goexperiment.simd && amd64

package codec

// The wide string loop: a whole string body, 64 bytes per step: two
// vectors with AVX2, one with AVX-512 (string_wide512.go).
//
// Fast path: 64 plain bytes (no quote, backslash, control character or
// non-ASCII byte) cost six compares and a mask test. Any other block
// takes the general step, which has no branch but its exit: the block's
// UTF-8 is validated whole with Keiser and Lemire's lookup tables
// (utf8Errors); the escapes are found as simdjson finds them (a
// backslash escapes the next byte unless it is escaped itself, the
// parity of backslash runs worked out with one subtraction) and checked in
// place, the four hex digits of \uXXXX included, with a table lookup that
// classifies every byte of the block at once (escapeClass); the string
// ends at the first quote not escaped, and only faults before it count.
// The frame's last bytes are read padded with zeros, which are control
// characters and so end the scan there too.
//
// Any fault sends the whole string back to scanStringSlow's byte loop,
// which finds the first one and its offset, so that the two paths
// report the same errors (FuzzStringWide).
//
// Carried from one block to the next (invariants at the top of the loop:
// d[start:i] is valid string content save for what these say): prev,
// the bytes before d[i] (zero at the start), where a UTF-8 sequence may
// begin that ends in this block; and wideCarry.
//
// The two widths have a loop each (stringWide, stringWide512): one loop
// for both, choosing the width inside, is 8% slower, the compiler keeping
// fewer of its values in registers. Their scalar halves are shared
// (wideCarry's step and done) and inlined.

import (
	"math/bits"
	"simd/archsimd"
)

// wideStrings: the CPU has AVX2, so scanStringSlow scans whole strings
// with stringWide (a build with GOEXPERIMENT=simd; see string_wide.go
// for the others); wide512: it has AVX-512 with VBMI (byte permutes
// across the vector) and GFNI too, and stringWide takes 64 bytes as one
// vector.
var (
	wideStrings = archsimd.X86.AVX2()
	wide512     = archsimd.X86.AVX512() && archsimd.X86.AVX512VBMI() && archsimd.X86.AVX512GFNI()
)

// stringWide scans the string body from d[i] (inside the body, at the
// start of a character, no escape pending) 64 bytes at a time, as two
// AVX2 vectors or, if use512 (wide512), one AVX-512 vector. It returns
// the index just past the closing quote and whether the body from i
// holds escapes; if the body is not valid (or the frame ends before it
// does), ^i: scanStringSlow's byte loop then scans it from i and reports
// the fault.
func stringWide(d []byte, i int, use512 bool) (int, bool) {
	if use512 {
		return stringWide512(d, i)
	}
	start := i
	var (
		prev archsimd.Uint8x32
		c    wideCarry
	)
	for i < len(d) {
		x0, x1 := load64(d, i) // zeros after d
		if plain32(x0, x1) && c.pending == 0 {
			prev = x1
			i += 64
			continue
		}
		fine0, bs0, quotes0, u0, notEsc0, notHex0 := halfMasks(x0, utf8Errors(x0, prev))
		fine1, bs1, quotes1, u1, notEsc1, notHex1 := halfMasks(x1, utf8Errors(x1, x0))
		prev = x1
		bs := uint64(bs0) | uint64(bs1)<<32
		escaped, hex, end := c.step(bs, uint64(quotes0)|uint64(quotes1)<<32, uint64(u0)|uint64(u1)<<32)
		bad := ^(uint64(fine0) | uint64(fine1)<<32) |
			escaped&(uint64(notEsc0)|uint64(notEsc1)<<32) | hex&(uint64(notHex0)|uint64(notHex1)<<32)
		// The block's last byte, or d's if the block runs past d's end
		// (then the zeros stop the string in it, and done does not use it).
		last := d[min(i+63, len(d)-1)]
		if j := c.done(i, bad, bs, end, uint64(last>>7)); j != 0 {
			return c.result(start, j)
		}
		i += 64
	}
	return ^start, false
}

// wideCarry is what the wide loops carry from one 64-byte block to the
// next but the bytes before it.
type wideCarry struct {
	escaped uint64 // 1 if the block's first byte is escaped
	hexNext uint64 // the block's bytes that must be hex digits (a \uXXXX begun before)
	pending uint64 // escaped, hexNext, or the byte before the block is not ASCII: the block takes the general step
	escs    uint64 // not zero if the string holds an escape before the block
}

// step and done are the general step's scalar half, the same for both
// vector widths.
//
// step takes a block's backslashes, quotes and 'u's (bit k for byte k).
// It returns the escaped bytes, the bytes that must be hex digits, and
// the quotes not escaped, the first of which ends the string; it
// carries out of the block what the next one needs to know of escapes.
func (c *wideCarry) step(bs, quotes, uChar uint64) (escaped, hex, end uint64) {
	escaped, c.escaped = escapes(bs, c.escaped)
	hex, c.hexNext = hexDigits(escaped&uChar, c.hexNext)
	return escaped, hex, quotes &^ escaped
}

// done takes the faults of the block at d[i] (bad: invalid UTF-8,
// control characters, bad escapes), its backslashes, step's end and
// whether its last byte is not ASCII (1 or 0; used only if the string
// goes on past the block). It returns 0 if the string goes on past the
// block, the index just past its closing quote if it ends there, and -1
// if it is not valid up to there.
func (c *wideCarry) done(i int, bad, bs, end, lastHigh uint64) int {
	upTo := end ^ (end - 1) // bits up to the first end, or all
	if bad&upTo != 0 {
		return -1
	}
	c.escs |= bs & upTo // a backslash in a string begins an escape
	if end != 0 {
		return i + bits.TrailingZeros64(end) + 1
	}
	// The next block takes the general step if its first byte is
	// escaped or must be a hex digit, or if a UTF-8 sequence may run
	// into it.
	c.pending = c.escaped | c.hexNext | lastHigh
	return 0
}

// result is stringWide's result for done's j != 0.
func (c *wideCarry) result(start, j int) (int, bool) {
	if j < 0 {
		return ^start, false
	}
	return j, c.escs != 0
}

// plain32 reports whether the 64 bytes of x0 and x1 are plain (see
// strSafe).
func plain32(x0, x1 archsimd.Uint8x32) bool {
	// Compared as signed bytes, those >= 0x80 (UTF-8 sequences) are
	// below 0x20 with the control characters.
	quote, backslash, space := vec32(&splatQuote), vec32(&splatBackslash), vec32(&splatSpace).AsInt8x32()
	return x0.Equal(quote).Or(x0.Equal(backslash)).Or(x0.AsInt8x32().Less(space)).
		Or(x1.Equal(quote).Or(x1.Equal(backslash)).Or(x1.AsInt8x32().Less(space))).ToBits() == 0
}

// escapes and hexDigits are the escape work of the general step, the
// same for both vector widths, on the masks of a 64-byte block, bit k
// for byte k.
//
// escapes returns the escaped bytes, given the backslashes and whether
// the block's first byte is escaped by the block before (escaped, 0 or
// 1), and whether the next block's first byte is. In a run of
// backslashes, every other one escapes the next byte, starting with the
// first that is not escaped itself; the parity of the runs comes out of
// one subtraction (as in simdjson's escape scanner): with the odd bits
// set, a run begun on an even byte borrows through itself, one begun on
// an odd byte does not.
func escapes(bs, escaped uint64) (escapedBytes, escapedOut uint64) {
	const odd = 0xaaaaaaaaaaaaaaaa
	potential := bs &^ escaped // an escaped backslash escapes nothing
	code := ((potential<<1 | odd) - potential) ^ odd
	return code ^ (bs | escaped), (code & bs) >> 63
}

// hexDigits returns the bytes that must be hex digits, the four after
// each escaped u (us) and those the block before asked for (hexNext),
// and those the next block must begin with. One multiplication spreads
// each u over the four bits after it (0x1e is bits 1 to 4), the high
// word of the product is what passes the block's end. The spreads of two
// us add without a carry when they are five or more bytes apart; closer,
// the string is not valid and the product still flags the first u's
// third or fourth byte, the second u's backslash, so the fault is found.
func hexDigits(us, hexNext uint64) (hex, hexOut uint64) {
	hexOut, hex = bits.Mul64(us, 0x1e)
	return hex | hexNext, hexOut
}

// load64 returns the 64 bytes from d[i] as two vectors, zeros after the
// end of d.
func load64(d []byte, i int) (archsimd.Uint8x32, archsimd.Uint8x32) {
	if len(d)-i >= 64 {
		return archsimd.LoadUint8x32((*[32]byte)(d[i:])), archsimd.LoadUint8x32((*[32]byte)(d[i+32:]))
	}
	return load64Slow(d, i)
}

func load64Slow(d []byte, i int) (x0, x1 archsimd.Uint8x32) {
	x0 = archsimd.LoadUint8x32SlicePart(d[i:])
	if i+32 < len(d) {
		x1 = archsimd.LoadUint8x32SlicePart(d[i+32:])
	}
	return x0, x1
}

// halfMasks returns the masks of 32 bytes x of a string body, bit k
// for byte k, given the UTF-8 faults utf8Errors found in them: fine,
// valid UTF-8 and not a control character; '\\'; '"'; 'u'; notEsc, not
// a byte that may follow a backslash; notHex, not a hex digit. It works
// on one vector at a time so that few are live at once: the compiler
// keeps them in registers.
func halfMasks(x, utf8 archsimd.Uint8x32) (fine, bs, quote, u, notEsc, notHex uint32) {
	var zero archsimd.Uint8x32
	class := escapeClass(x)
	fine = utf8.Or(class.And(vec32(&splatHigh))).Equal(zero).ToBits() // classControl
	bs = x.Equal(vec32(&splatBackslash)).ToBits()
	quote = x.Equal(vec32(&splatQuote)).ToBits()
	u = x.Equal(vec32(&splatU)).ToBits()
	notEsc = class.And(vec32(&splatBackslash)).Equal(zero).ToBits() // classEscape
	notHex = class.And(vec32(&splatQuote)).Equal(zero).ToBits()     // classHex
	return fine, bs, quote, u, notEsc, notHex
}

// vec32 and vec64 load a constant vector: one of the arrays below, of
// equal bytes, or a table. Go hoists nothing out of a loop, so a
// constant vector is made where it is used (a load is one instruction, a
// broadcast three) unless the loop loads it before it starts (see
// stringWide512).
func vec32(v *[64]byte) archsimd.Uint8x32 { return archsimd.LoadUint8x32((*[32]byte)(v[:])) }

func vec64(v *[64]byte) archsimd.Uint8x64 { return archsimd.LoadUint8x64(v) }

var (
	splatQuote     = bytes32('"')
	splatBackslash = bytes32('\\')
	splatSpace     = bytes32(' ')
	splatU         = bytes32('u')
	splatLow       = bytes32(0x0f)
	splatHigh      = bytes32(0x80)
	splat3         = bytes32(0xe0 - 0x80) // see utf8Errors
	splat4         = bytes32(0xf0 - 0x80)
)

func bytes32(c byte) (v [64]byte) {
	for k := range v {
		v[k] = c
	}
	return v
}

// Classes of escapeClass: the byte may follow a backslash
// ("\/bfnrtu), it is a hex digit, or it is a control character. Each
// class is a set of bits, chosen so that vectors the loops have anyway
// test them (classHex is '"', classEscape '\\', classControl the UTF-8
// check's 0x80): the AVX-512 loop keeps those in registers, so no class
// test needs a load of its own.
const (
	classEscape  = '\\' // 0x5c: bits 2, 3, 4 and 6
	classHex     = '"'  // 0x22: bits 1 and 5
	classControl = 0x80
)

// escapeClass returns, for each byte of x, its classes (classEscape,
// classHex, classControl), from two 16-entry tables looked up by its high and low
// nibbles: a byte is in a class if both entries have one of its bits.
func escapeClass(x archsimd.Uint8x32) archsimd.Uint8x32 {
	low := vec32(&splatLow)
	high := x.AsUint16x16().ShiftAllRight(4).AsUint8x32().And(low)
	return vec32(&escapeHigh).PermuteOrZeroGrouped(high.AsInt8x32()).
		And(vec32(&escapeLow).PermuteOrZeroGrouped(x.And(low).AsInt8x32()))
}

// escapeHigh and escapeLow are escapeClass' tables, by high and low
// nibble.
var escapeHigh, escapeLow = classTables()

// classTables builds escapeClass' tables. A class gives each high nibble
// of its bytes a bit of its own, which the low nibbles that pair with it
// carry, but the letters' two high nibbles (A-F, a-f), whose low ones are
// the same, share theirs.
func classTables() (high, low [64]byte) {
	var h, l [16]byte
	add := func(bit byte, c int) {
		h[c>>4] |= bit
		l[c&15] |= bit
	}
	for _, c := range []byte(`"/\bfnrtu`) {
		// One bit of classEscape per high nibble: 2, 5, 6, 7.
		add([]byte{2: 0x04, 5: 0x08, 6: 0x10, 7: 0x40}[c>>4], int(c))
	}
	for c := '0'; c <= '9'; c++ {
		add(0x02, int(c))
	}
	for c := 'A'; c <= 'F'; c++ {
		add(0x20, int(c))
		add(0x20, int(c|0x20))
	}
	for c := range 0x20 {
		add(classControl, c)
	}
	return dup16(h), dup16(l)
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
	low := vec32(&splatLow)
	// The 32 bytes from the middle of prev to the middle of x, so that
	// the byte shifts within 16-byte groups bring in prev's last bytes.
	mid := prev.Select128FromPair(1, 2, x)
	prev1 := x.ConcatShiftBytesRightGrouped(15, mid)
	prev2 := x.ConcatShiftBytesRightGrouped(14, mid)
	prev3 := x.ConcatShiftBytesRightGrouped(13, mid)
	high1 := prev1.AsUint16x16().ShiftAllRight(4).AsUint8x32().And(low)
	high := x.AsUint16x16().ShiftAllRight(4).AsUint8x32().And(low)
	special := vec32(&utf8Byte1High).PermuteOrZeroGrouped(high1.AsInt8x32()).
		And(vec32(&utf8Byte1Low).PermuteOrZeroGrouped(prev1.And(low).AsInt8x32())).
		And(vec32(&utf8Byte2High).PermuteOrZeroGrouped(high.AsInt8x32()))
	// Saturating subtraction leaves the high bit set only for a byte
	// >= 0xe0 two back or >= 0xf0 three back.
	must23 := prev2.SubSaturated(vec32(&splat3)).
		Or(prev3.SubSaturated(vec32(&splat4))).
		And(vec32(&splatHigh))
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
// 16 entries repeated for each 16-byte group of a vector (of 32 or 64).
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

// dup16 returns t four times: a table for each 16-byte group of a
// vector.
func dup16(t [16]byte) (v [64]byte) {
	for k := 0; k < 64; k += 16 {
		copy(v[k:], t[:])
	}
	return v
}
