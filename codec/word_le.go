//go:build 386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm

package codec

import "unsafe"

// word returns the 8 bytes from d[i] as a little-endian word; the caller
// has checked that len(d)-i >= 8. On a little-endian machine that is one
// load: without a slice of d to make (whose pointer Go masks against a
// zero capacity, three steps on the way from i to the load) and with one
// bounds check, on d[i]. The scan's fast paths chain such loads, one
// token's end giving the next token's start.
func word(d []byte, i int) uint64 { return *(*uint64)(unsafe.Pointer(&d[i])) }
