//go:build !race

package codec_test

import (
	"testing"

	"github.com/mcpwire/mcpwire/codec"
)

// Member allocates nothing.
func TestMember_allocs(t *testing.T) {
	obj := []byte(`{"_meta":{"k":1},"io.modelcontextprotocol/protocolVersion":"2026-07-28","resultType":"complete"}`)
	if n := testing.AllocsPerRun(100, func() {
		if _, ok := codec.Member(obj, "resultType"); !ok {
			t.Fatal("not found")
		}
	}); n != 0 {
		t.Errorf("Member: %v allocs, want 0", n)
	}
}
