//go:build !amd64 || purego

package codec

// wideStrings says scanStringSlow hands strings to stringWide, which
// looks at 64 bytes at a time. That needs the assembly of
// string_wide_amd64.s: amd64 with AVX2, built without the purego tag.
// Elsewhere strings are scanned a word (8 bytes) at a time.
const wideStrings = false

// wideBuild says the build has wide loops for the CPU to choose (see
// wideStrings).
const wideBuild = false

// wide512 says stringWide takes 64 bytes as one AVX-512 vector: never
// without wide scanning.
const wide512 = false

// stringWide returns ^i: without wide scanning, scanStringSlow's
// word-at-a-time loop does all the work.
func stringWide(d []byte, i int, use512 bool) (int, bool) { return ^i, false }
