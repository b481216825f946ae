package codec_test

import (
	"testing"

	"github.com/mcpwire/mcpwire/codec"
)

func TestUnmarshalExact_matchesNamesCaseSensitively(t *testing.T) {
	type P struct {
		Name string `json:"name"`
		Age  int
	}
	var p P
	if err := codec.UnmarshalExact([]byte(`{"NAME":"x","name":"y","age":3}`), &p); err != nil {
		t.Fatal(err)
	}
	if p.Name != "y" || p.Age != 0 {
		t.Fatalf("got %+v, want name y and age 0 (age is not Age)", p)
	}
	var q P
	if err := codec.Unmarshal([]byte(`{"NAME":"x"}`), &q); err != nil || q.Name != "x" {
		t.Fatalf("Unmarshal folds case: got %+v, %v", q, err)
	}
}

// TestExactDecoder: one held decoder serves decode after decode, each as
// UnmarshalExactString would (names matched exactly, errors reported),
// and a failed decode leaves it ready for the next.
func TestExactDecoder(t *testing.T) {
	type P struct {
		Name string `json:"name"`
		N    int    `json:"n"`
	}
	var d codec.ExactDecoder
	for k, c := range []struct {
		in   string
		want P
		ok   bool
	}{
		{`{"name":"a","n":1}`, P{"a", 1}, true},
		{`{"NAME":"b","n":2}`, P{"", 2}, true},
		{`{"name":3}`, P{}, false},
		{`{"name":"c"}`, P{"c", 0}, true},
	} {
		var got, ref P
		err := d.UnmarshalString(c.in, &got)
		refErr := codec.UnmarshalExactString(c.in, &ref)
		if (err == nil) != c.ok || (refErr == nil) != c.ok {
			t.Fatalf("%d: %s: err %v (UnmarshalExactString: %v), want ok %v", k, c.in, err, refErr, c.ok)
		}
		if c.ok && (got != c.want || ref != c.want) {
			t.Fatalf("%d: %s: got %+v (UnmarshalExactString: %+v), want %+v", k, c.in, got, ref, c.want)
		}
	}
}
