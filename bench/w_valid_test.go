package bench

import (
	"testing"

	"github.com/mcpwire/mcpwire/bench/valid"
)

// BenchmarkValidate is W5: each validator checks every line of a 1 MiB
// mixed MCP stream (found with bytes.IndexByte, as the indexbyte entry
// does and nothing more). MB/s is the figure; every line must pass.
func BenchmarkValidate(b *testing.B) {
	stream := valid.Stream(1 << 20)
	for _, im := range valid.Impls {
		b.Run("impl="+im.Name, func(b *testing.B) {
			f := im.New()
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for b.Loop() {
				if lines, ok := valid.Lines(stream, f); ok != lines {
					b.Fatalf("%d of %d lines rejected", lines-ok, lines)
				}
			}
		})
	}
}

// TestValidate checks W5's material: the stream is about 1 MiB, every
// validator accepts each of its lines, and mcpwire's scanner rejects every
// case RFC 8259's grammar rejects (the others' answers are logged: the
// strictness table).
func TestValidate(t *testing.T) {
	stream := valid.Stream(1 << 20)
	if n := len(stream); n < 1<<20 || n > 1<<20+64<<10 {
		t.Errorf("stream of %d bytes, want about 1 MiB", n)
	}
	for _, im := range valid.Impls {
		if lines, ok := valid.Lines(stream, im.New()); ok != lines || lines < 100 {
			t.Errorf("%s: %d of %d lines valid", im.Name, ok, lines)
		}
		acc := valid.Accepts(im)
		for i, c := range valid.Cases {
			if im.Name == "mcpwire" && c.Grammar && acc[i] {
				t.Errorf("mcpwire accepts %s: %q", c.Name, c.Input)
			}
			t.Logf("%-13s %-22s accepted=%v", im.Name, c.Name, acc[i])
		}
	}
}
