//go:build !(goexperiment.simd && amd64)

package codec

// wideStrings says plainRun looks at many bytes at a time. That needs
// Go's SIMD package: build with GOEXPERIMENT=simd on amd64 (with AVX2)
// for string_wide_simd.go. Without it, strings are scanned a word (8
// bytes) at a time, which is the default.
const wideStrings = false

// plainRun returns i: without wide scanning, the callers' word-at-a-time
// loops do all the work.
func plainRun(d []byte, i int) int { return i }
