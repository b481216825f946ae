package conn

import (
	"errors"
	"testing"
)

// TestAppendRequest: params are encoded in place, after the method; nil
// params and params encoding to null leave the member out; others than an
// array or an object are refused, the buffer left as it was.
func TestAppendRequest(t *testing.T) {
	var none *struct{ A int }
	for _, c := range []struct {
		id     string
		params any
		want   string
		err    error
	}{
		{"7", map[string]int{"a": 1}, `{"jsonrpc":"2.0","id":7,"method":"m","params":{"a":1}}`, nil},
		{"7", []int{1, 2}, `{"jsonrpc":"2.0","id":7,"method":"m","params":[1,2]}`, nil},
		{"", []int{1}, `{"jsonrpc":"2.0","method":"m","params":[1]}`, nil},
		{"7", nil, `{"jsonrpc":"2.0","id":7,"method":"m"}`, nil},
		{"7", none, `{"jsonrpc":"2.0","id":7,"method":"m"}`, nil},
		{"7", 5, "", ErrBadParams},
		{"7", "x", "", ErrBadParams},
		{"7", func() {}, "", errors.New("any")},
	} {
		var id []byte
		if c.id != "" {
			id = []byte(c.id)
		}
		got, err := appendRequest([]byte("prev"), id, "m", c.params)
		switch {
		case c.err == nil && (err != nil || string(got) != "prev"+c.want):
			t.Errorf("%#v: %s, %v; want %s", c.params, got, err, c.want)
		case c.err != nil && (err == nil || string(got) != "prev"):
			t.Errorf("%#v: %s, %v; want the buffer unchanged and an error", c.params, got, err)
		case errors.Is(c.err, ErrBadParams) && !errors.Is(err, ErrBadParams):
			t.Errorf("%#v: %v, want ErrBadParams", c.params, err)
		}
	}
}
