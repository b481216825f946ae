package codec_test

import (
	"testing"

	"github.com/mcpwire/mcpwire/codec"
)

func TestMember(t *testing.T) {
	obj := []byte(`{"a":1, "b" : {"c":[2]}, "\u0064":"d", "a":3}`)
	for _, tc := range []struct {
		name, want string
		ok         bool
	}{
		{"a", "1", true}, {"b", `{"c":[2]}`, true}, {"d", `"d"`, true}, {"c", "", false}, {"", "", false},
	} {
		v, ok := codec.Member(obj, tc.name)
		if string(v) != tc.want || ok != tc.ok {
			t.Errorf("Member(%q) = %s %v, want %s %v", tc.name, v, ok, tc.want, tc.ok)
		}
	}
	if v, ok := codec.Member([]byte(`[1]`), "a"); ok || v != nil {
		t.Errorf("Member of an array = %s %v", v, ok)
	}
}
