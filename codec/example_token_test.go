package codec_test

import (
	"fmt"

	"github.com/mcpwire/mcpwire/codec"
)

// Walking params without unmarshalling them: the members of an object, a
// name with escapes, the elements of an array.
func ExampleMembers() {
	params := []byte(`{"name": "echo", "argum\u0065nts": {"text": "hi", "n": [1, 2]}}`)
	var scratch [32]byte
	var it codec.Members
	for it.Reset(params); it.Next(); {
		fmt.Printf("%s (%v) = %s\n", it.Name(scratch[:]), codec.KindOf(it.Value()), it.Value())
	}
	if err := it.Err(); err != nil {
		panic(err)
	}
	var el codec.Elements
	for el.Reset([]byte(`[1, "two", {"three": 3}]`)); el.Next(); {
		fmt.Println(el.Index(), codec.KindOf(el.Value()), string(el.Value()))
	}
	// Output:
	// name (string) = "echo"
	// arguments (object) = {"text": "hi", "n": [1, 2]}
	// 0 number 1
	// 1 string "two"
	// 2 object {"three": 3}
}

// Two spellings of the same params have one canonical form: a cache key.
func ExampleAppendCanonical() {
	a, _ := codec.AppendCanonical(nil, []byte(`{"text": "caf\u00e9", "n": 1}`))
	b, _ := codec.AppendCanonical(nil, []byte(`{"n":1,"text":"café"}`))
	fmt.Println(string(a))
	fmt.Println(string(a) == string(b))
	// Output:
	// {"n":1,"text":"café"}
	// true
}

func ExampleSkipValue() {
	d := []byte(`{"a": [1, "]"], "b": 2}`)
	end, err := codec.SkipValue(d, 6)
	fmt.Println(string(d[6:end]), err)
	// Output: [1, "]"] <nil>
}
