//go:build !(goexperiment.simd && amd64)

package codec

// wideStrings says scanStringSlow hands strings to stringWide, which
// looks at many bytes at a time. That needs Go's SIMD package: build with
// GOEXPERIMENT=simd on amd64 (with AVX2) for string_wide_simd.go. Without
// it, strings are scanned a word (8 bytes) at a time, which is the
// default.
const wideStrings = false

// wide512 says stringWide takes 64 bytes as one AVX-512 vector: never
// without wide scanning.
const wide512 = false

// stringWide returns ^i: without wide scanning, scanStringSlow's
// word-at-a-time loop does all the work.
func stringWide(d []byte, i int, use512 bool) (int, bool) { return ^i, false }
