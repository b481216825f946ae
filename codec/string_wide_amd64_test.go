//go:build amd64 && !purego

package codec

import (
	"strings"
	"testing"
	"unsafe"
)

// wideModes are the string loops this CPU can run: the portable one
// always, AVX2 and AVX-512 if it has them.
func wideModes() []wideMode {
	modes := []wideMode{{"portable", false, false}}
	if defaultWide.wide {
		modes = append(modes, wideMode{"avx2", true, false})
	}
	if defaultWide.w512 {
		modes = append(modes, wideMode{"avx512", true, true})
	}
	return modes
}

// defaultWide is the loop chosen at initialisation.
var defaultWide = wideMode{"default", wideStrings, wide512}

// setWide makes the scanner use the loop of m (setWide(defaultWide)
// restores the default). Tests that call it must not run in parallel.
func setWide(m wideMode) { wideStrings, wide512 = m.wide, m.w512 }

// TestWideTables_layout holds wideTables' fields to the offsets
// string_wide_amd64.s reads them at.
func TestWideTables_layout(t *testing.T) {
	var w wideTables
	offsets := []uintptr{
		unsafe.Offsetof(w.quote), unsafe.Offsetof(w.backslash), unsafe.Offsetof(w.space), unsafe.Offsetof(w.u),
		unsafe.Offsetof(w.low), unsafe.Offsetof(w.high), unsafe.Offsetof(w.third), unsafe.Offsetof(w.fourth),
		unsafe.Offsetof(w.utf8Byte1High), unsafe.Offsetof(w.utf8Byte1Low), unsafe.Offsetof(w.utf8Byte2High),
		unsafe.Offsetof(w.escapeHigh), unsafe.Offsetof(w.escapeLow),
	}
	for k, off := range offsets {
		if off != uintptr(64*k) {
			t.Errorf("field %d at offset %d, want %d", k, off, 64*k)
		}
	}
	if unsafe.Sizeof(w) != uintptr(64*len(offsets)) {
		t.Errorf("wideTables has %d bytes, want %d", unsafe.Sizeof(w), 64*len(offsets))
	}
}

// TestEscapeClass holds the class tables to the classes they stand for,
// for every byte.
func TestEscapeClass(t *testing.T) {
	for c := range 256 {
		class := wideConsts.escapeHigh[c>>4] & wideConsts.escapeLow[c&15]
		escape, hex, control := classesOf(byte(c))
		if class&classEscape != 0 != escape || class&classHex != 0 != hex || class&classControl != 0 != control {
			t.Errorf("%q: class %#x, want escape %v, hex %v, control %v", byte(c), class, escape, hex, control)
		}
	}
}

// classesOf says which of the classes of escapes c is in: it may follow
// a backslash, it is a hex digit, it is a control character.
func classesOf(c byte) (escape, hex, control bool) {
	return strings.IndexByte(`"\/bfnrtu`, c) >= 0,
		'0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f',
		c < 0x20
}
