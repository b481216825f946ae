package codec

import (
	"encoding/json"
	"testing"
)

func TestRaw_UnmarshalJSON(t *testing.T) {
	type params struct {
		Name string `json:"name"`
		Args Raw    `json:"args"`
	}
	in := []byte(`{"name":"x","args": {"a" : [1, "\u00e9"]} }`)
	want := `{"a" : [1, "\u00e9"]}`
	for _, dec := range []struct {
		name string
		f    func([]byte, any) error
	}{{"sonic", Unmarshal}, {"encoding_json", json.Unmarshal}} {
		var p params
		if err := dec.f(in, &p); err != nil || string(p.Args) != want {
			t.Errorf("%s: %q, %v; want %q", dec.name, p.Args, err, want)
		}
		var n params
		if err := dec.f([]byte(`{"args":null}`), &n); err != nil || string(n.Args) != "null" {
			t.Errorf("%s: null gives %q, %v", dec.name, n.Args, err)
		}
	}
	// A copy, not a view.
	var r Raw
	b := []byte(`[1]`)
	_ = r.UnmarshalJSON(b)
	b[1] = '2'
	if string(r) != `[1]` {
		t.Errorf("Raw aliases its input: %s", r)
	}
}
