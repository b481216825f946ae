//go:build amd64 && !purego

package codec

// The wide string loop: a whole string body, 64 bytes per step, in
// assembly (string_wide_amd64.s): two 32-byte vectors with AVX2
// (stringWide256), one 64-byte vector with AVX-512 (stringWide512). The
// loop is chosen once, when the package is initialised, from the CPU's
// features; a build with the purego tag, or a CPU without AVX2, keeps
// the portable word-at-a-time loop (string_wide.go).
//
// Fast path: 64 plain bytes (no quote, backslash, control character or
// non-ASCII byte) cost three compares and a mask test. Any other block
// takes the general step, which has no branch but its exit: the block's
// UTF-8 is validated whole with Keiser and Lemire's lookup tables
// (wideTables.utf8Byte1High and the others); the escapes are found as
// simdjson finds them (a backslash escapes the next byte unless it is
// escaped itself, the parity of backslash runs worked out with one
// subtraction) and checked in place, the four hex digits of \uXXXX
// included, with a table lookup that classifies every byte of the block
// at once (wideTables.escapeHigh and escapeLow); the string ends at the
// first quote not escaped, and only faults before it count. The frame's
// last bytes are read padded with zeros, which are control characters
// and so end the scan there too; nothing past the frame is read.
//
// Any fault sends the whole string back to scanStringSlow's byte loop,
// which finds the first one and its offset, so that the paths report the
// same errors (FuzzStringWide checks each one against a byte-at-a-time
// reference).
//
// Carried from one block to the next: the bytes before the block (zero
// at the start), where a UTF-8 sequence may begin that ends in it;
// whether its first byte is escaped; which of its bytes must be hex
// digits (a \uXXXX begun before); whether it must take the general step
// (one of those, or a non-ASCII byte last in the block before); whether
// an escape came before it.

import "golang.org/x/sys/cpu"

// wideStrings: the CPU has AVX2, so scanStringSlow scans whole strings
// with stringWide; wide512: it has AVX-512 with byte and word
// instructions (BW) and byte permutes across the vector (VBMI), and
// stringWide takes 64 bytes as one vector. Set once, when the package is
// initialised; tests switch them to check each loop.
var (
	wideStrings = cpu.X86.HasAVX2
	wide512     = cpu.X86.HasAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI
)

// wideBuild says the build has wide loops for the CPU to choose: then
// stringEnd leaves a long string to scanStringSlow after its first 64
// bytes. A constant, so that stringEnd's bound is a branch-free min with
// no variable to load.
const wideBuild = true

// stringWide scans the string body from d[i] (inside the body, at the
// start of a character, no escape pending) 64 bytes at a time, as two
// AVX2 vectors or, if use512 (wide512), one AVX-512 vector. It returns
// the index just past the closing quote and whether the body from i
// holds escapes; if the body is not valid (or the frame ends before it
// does), ^i: scanStringSlow's byte loop then scans it from i and reports
// the fault. The caller has checked that the CPU has the instructions.
func stringWide(d []byte, i int, use512 bool) (int, bool) {
	if use512 {
		return stringWide512(d, i, &wideConsts)
	}
	return stringWide256(d, i, &wideConsts)
}

// stringWide256 and stringWide512 are stringWide's loops, for AVX2 and
// for AVX-512 (string_wide_amd64.s); t holds their constant vectors.
//
//go:noescape
func stringWide256(d []byte, i int, t *wideTables) (j int, esc bool)

//go:noescape
func stringWide512(d []byte, i int, t *wideTables) (j int, esc bool)
