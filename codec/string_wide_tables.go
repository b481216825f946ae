//go:build amd64 && !purego

package codec

// wideTables are the constant vectors of the wide string loops
// (string_wide_amd64.s), 64 bytes each: bytes all equal, or 16-entry
// tables repeated for each 16-byte group of a vector. The assembly
// finds each at its offset (a multiple of 64, in the order below);
// TestWideTables_layout holds the two to each other.
type wideTables struct {
	quote, backslash, space, u [64]byte // '"', '\\', ' ', 'u'
	low, high                  [64]byte // 0x0f (a low nibble), 0x80
	third, fourth              [64]byte // see utf8Byte1High
	// utf8Byte1High, utf8Byte1Low and utf8Byte2High validate UTF-8
	// (Keiser and Lemire, "Validating UTF-8 in less than one instruction
	// per byte", 2021, as in simdjson and simdutf): looked up by the
	// high and low nibbles of the byte before and the high nibble of a
	// byte, and ANDed, they flag the faults that two bytes show (too
	// short, too long, overlong, above U+10FFFF, surrogate, a
	// continuation without a lead). A fourth check wants a continuation
	// wherever a 3- or 4-byte lead two or three bytes back asks for one:
	// subtracting third (0xe0-0x80) or fourth (0xf0-0x80) with
	// saturation leaves the high bit set only for a byte >= 0xe0 two
	// back or >= 0xf0 three back; those cancel u8TwoConts by XOR. A
	// sequence cut short at the end of a block shows in the next one.
	utf8Byte1High, utf8Byte1Low, utf8Byte2High [64]byte
	// escapeHigh and escapeLow classify bytes, looked up by high and low
	// nibble: a byte is in a class (classEscape, classHex,
	// classControl) if both entries have one of its bits.
	escapeHigh, escapeLow [64]byte
}

// wideConsts are the loops' constant vectors.
var wideConsts = func() (t wideTables) {
	t.quote, t.backslash, t.space, t.u = bytes64('"'), bytes64('\\'), bytes64(' '), bytes64('u')
	t.low, t.high = bytes64(0x0f), bytes64(0x80)
	t.third, t.fourth = bytes64(0xe0-0x80), bytes64(0xf0-0x80)
	t.utf8Byte1High, t.utf8Byte1Low, t.utf8Byte2High = utf8Tables()
	t.escapeHigh, t.escapeLow = classTables()
	return t
}()

func bytes64(c byte) (v [64]byte) {
	for k := range v {
		v[k] = c
	}
	return v
}

// Classes of escapeHigh and escapeLow: the byte may follow a backslash
// ("\/bfnrtu), it is a hex digit, or it is a control character. Each
// class is a set of bits, chosen so that vectors the loops have anyway
// test them (classHex is '"', classEscape '\\', classControl the UTF-8
// check's 0x80): no class test needs a constant of its own.
const (
	classEscape  = '\\' // 0x5c: bits 2, 3, 4 and 6
	classHex     = '"'  // 0x22: bits 1 and 5
	classControl = 0x80
)

// classTables builds the class tables. A class gives each high nibble
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

// The fault bits of the UTF-8 tables: which byte pairs show them.
const (
	u8TooShort   = 1 << 0 // 11______ 0_______ or 11______ 11______
	u8TooLong    = 1 << 1 // 0_______ 10______
	u8Overlong3  = 1 << 2 // 11100000 100_____
	u8TooLarge   = 1 << 3 // 11110100 1001____, 11110100 101_____, 11110101+ 1001____ or 101_____
	u8Surrogate  = 1 << 4 // 11101101 101_____
	u8Overlong2  = 1 << 5 // 1100000_ 10______
	u8TooLarge1K = 1 << 6 // 11110101+ 1000____
	u8Overlong4  = 1 << 6 // 11110000 1000____
	u8TwoConts   = 1 << 7 // 10______ 10______ (or a continuation a lead asked for)
	u8Carry      = u8TooShort | u8TooLong | u8TwoConts
)

// utf8Tables returns the UTF-8 tables: by the high nibble of the byte
// before, by its low nibble, and by the high nibble of the byte.
func utf8Tables() (byte1High, byte1Low, byte2High [64]byte) {
	return dup16([16]byte{
			// 0_______: ASCII
			u8TooLong, u8TooLong, u8TooLong, u8TooLong, u8TooLong, u8TooLong, u8TooLong, u8TooLong,
			// 10______: continuation
			u8TwoConts, u8TwoConts, u8TwoConts, u8TwoConts,
			u8TooShort | u8Overlong2,                             // 1100____
			u8TooShort,                                           // 1101____
			u8TooShort | u8Overlong3 | u8Surrogate,               // 1110____
			u8TooShort | u8TooLarge | u8TooLarge1K | u8Overlong4, // 1111____
		}), dup16([16]byte{
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
		}), dup16([16]byte{
			// ________ 0_______: ASCII
			u8TooShort, u8TooShort, u8TooShort, u8TooShort, u8TooShort, u8TooShort, u8TooShort, u8TooShort,
			u8TooLong | u8Overlong2 | u8TwoConts | u8Overlong3 | u8TooLarge1K | u8Overlong4, // 1000____
			u8TooLong | u8Overlong2 | u8TwoConts | u8Overlong3 | u8TooLarge,                 // 1001____
			u8TooLong | u8Overlong2 | u8TwoConts | u8Surrogate | u8TooLarge,                 // 101_____
			u8TooLong | u8Overlong2 | u8TwoConts | u8Surrogate | u8TooLarge,
			// ________ 11______: a lead
			u8TooShort, u8TooShort, u8TooShort, u8TooShort,
		})
}

// dup16 returns t four times: a table for each 16-byte group of a
// vector.
func dup16(t [16]byte) (v [64]byte) {
	for k := 0; k < 64; k += 16 {
		copy(v[k:], t[:])
	}
	return v
}
