//go:build !(386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm)

package codec

import "encoding/binary"

// word returns the 8 bytes from d[i] as a little-endian word; the caller
// has checked that len(d)-i >= 8 (see word_le.go).
func word(d []byte, i int) uint64 { return binary.LittleEndian.Uint64(d[i : i+8]) }
