package unsafex

import (
	"encoding/binary"
	"unsafe"
)

// IsZero reports whether the size bytes at p+off are all zero: for telling
// whether a decoder wrote to a field of a struct it was given zeroed.
//
// p must point to a live object at least off+size bytes long (a struct and
// the offset and size of one of its fields, from reflect); the bytes are
// only read, during the call, and nothing is kept.
func IsZero(p unsafe.Pointer, off, size uintptr) bool {
	b := unsafe.Slice((*byte)(unsafe.Add(p, off)), size)
	for len(b) >= 8 {
		if binary.NativeEndian.Uint64(b) != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// String returns b's bytes as a string without copying them.
//
// The caller must own b and never write to it again, nor let anyone else:
// the string is b's memory for as long as it lives.
func String(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
