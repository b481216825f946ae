package codec

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func BenchmarkTmpString(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	ins := map[string][]byte{
		"b64":  []byte(`"` + mcpBlob(r, 48<<10) + `"`),
		"text": []byte(`"` + mcpLongText(64<<10) + `"`),
		"cjk":  []byte(`"` + strings.Repeat("中文文本日本語", 4000) + `"`),
	}
	for _, k := range []string{"b64", "text", "cjk"} {
		in := ins[k]
		b.Run(k, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if i, _, err := scanString(in, 1); err != nil || i != len(in) {
					b.Fatal(err)
				}
			}
		})
	}
}
