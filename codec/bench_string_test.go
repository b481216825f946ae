package codec

import "testing"

// BenchmarkStringLoop is BenchmarkValid's mcpwire rows with each string
// loop the CPU runs (loop=portable, avx2, avx512; see wideModes), so that
// one machine measures them all.
func BenchmarkStringLoop(b *testing.B) {
	defer setWide(defaultWide)
	for _, m := range wideModes() {
		for _, in := range benchScanInputs() {
			b.Run("loop="+m.name+"/"+in.name, func(b *testing.B) {
				setWide(m)
				s := NewScanner(nil)
				b.ReportAllocs()
				b.SetBytes(totalBytes(in.frames))
				for b.Loop() {
					for _, f := range in.frames {
						if !s.Valid(f) {
							b.Fatal("a frame is not valid")
						}
					}
				}
			})
		}
	}
}
