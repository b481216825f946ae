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
