package codec

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// memberCases are objects and the members Members reads from them, as
// name=value with the value's offset.
var memberCases = []struct {
	in   string
	want []string // name=value
	offs []int
}{
	{`{}`, nil, nil},
	{` { } `, nil, nil},
	{`{"a":1}`, []string{"a=1"}, []int{5}},
	{`{"a":1,"b":[1,{"c":"}"}],"a":null}`, []string{"a=1", `b=[1,{"c":"}"}]`, "a=null"}, []int{5, 11, 29}},
	{"{\n  \"m\\u0069nuend\" : \"x\\\"y\" ,\n\t\"\" : {} }", []string{`minuend="x\"y"`, "={}"}, []int{21, 36}},
	{`{"é中":true,"😀":false}`, []string{"é中=true", "😀=false"}, []int{9, 21}},
}

func TestMembers(t *testing.T) {
	for _, tt := range memberCases {
		var it Members
		var got []string
		var offs []int
		var scratch [4]byte
		for it.Reset([]byte(tt.in)); it.Next(); {
			name := it.Name(scratch[:])
			if !it.KeyEscaped() && string(name) != string(it.Key()[1:len(it.Key())-1]) {
				t.Errorf("%s: Name %q is not Key %q without quotes", tt.in, name, it.Key())
			}
			if it.Index() != len(got) {
				t.Errorf("%s: Index %d, want %d", tt.in, it.Index(), len(got))
			}
			if tt.in[it.Offset():it.Offset()+len(it.Value())] != string(it.Value()) {
				t.Errorf("%s: Offset %d does not locate %s", tt.in, it.Offset(), it.Value())
			}
			got = append(got, string(name)+"="+string(it.Value()))
			offs = append(offs, it.Offset())
		}
		if err := it.Err(); err != nil {
			t.Errorf("%s: Err %v", tt.in, err)
		}
		if it.Index()+1 != len(tt.want) {
			t.Errorf("%s: Index()+1 = %d after the walk, want %d", tt.in, it.Index()+1, len(tt.want))
		}
		if !reflect.DeepEqual(got, tt.want) || !reflect.DeepEqual(offs, tt.offs) {
			t.Errorf("%s: got %q at %v, want %q at %v", tt.in, got, offs, tt.want, tt.offs)
		}
		if it.Next() {
			t.Errorf("%s: Next after the end", tt.in)
		}
	}
}

func TestElements(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`[]`, nil},
		{" [\n] ", nil},
		{`[1]`, []string{"1"}},
		{`[ 1 , "a,b" , [2,[3]] , {"x":"]"} , true , null ]`, []string{"1", `"a,b"`, "[2,[3]]", `{"x":"]"}`, "true", "null"}},
		{`["` + strings.Repeat("x", 40) + `",-0.5e3]`, []string{`"` + strings.Repeat("x", 40) + `"`, "-0.5e3"}},
	}
	for _, tt := range tests {
		var it Elements
		var got []string
		for it.Reset([]byte(tt.in)); it.Next(); {
			if it.Index() != len(got) || tt.in[it.Offset():it.Offset()+len(it.Value())] != string(it.Value()) {
				t.Errorf("%s: Index %d or Offset %d wrong", tt.in, it.Index(), it.Offset())
			}
			got = append(got, string(it.Value()))
		}
		if err := it.Err(); err != nil || !reflect.DeepEqual(got, tt.want) || it.Index()+1 != len(tt.want) {
			t.Errorf("%s: got %q, %v, %d; want %q", tt.in, got, err, it.Index()+1, tt.want)
		}
	}
}

// TestIterators_invalid: on text that is not one valid container, the walk
// stops with a *SyntaxError at the fault, having returned what came before.
func TestIterators_invalid(t *testing.T) {
	tests := []struct {
		in    string
		array bool
		n     int // values returned before the fault
		at    int64
	}{
		{``, false, 0, 0},
		{`[]`, false, 0, 0},
		{`{}`, true, 0, 0},
		{`{`, false, 0, 1},
		{`{"a"}`, false, 0, 4},
		{`{"a":}`, false, 0, 5},
		{`{"a":1`, false, 1, 6},
		{`{"a":1 "b":2}`, false, 1, 7},
		{`{"a":1,}`, false, 1, 7},
		{`{1:2}`, false, 0, 1},
		{`{"a\q":1}`, false, 0, 3},
		{`{"a":1} x`, false, 1, 8},
		{`[1,]`, true, 1, 3},
		{`[1 2]`, true, 1, 3},
		{`[1,2`, true, 2, 4},
		{`[,1]`, true, 0, 1},
		{`[tru]`, true, 0, 1},
		{`["\ud8"]`, true, 0, 2},
	}
	for _, tt := range tests {
		n := 0
		var err error
		if tt.array {
			var it Elements
			for it.Reset([]byte(tt.in)); it.Next(); {
				n++
			}
			err = it.Err()
		} else {
			var it Members
			for it.Reset([]byte(tt.in)); it.Next(); {
				n++
			}
			err = it.Err()
		}
		var se *SyntaxError
		if !errors.As(err, &se) || se.Offset != tt.at || n != tt.n {
			t.Errorf("%q: %d values, error %v; want %d values and a *SyntaxError at %d", tt.in, n, err, tt.n, tt.at)
		}
	}
	var zero Members
	if zero.Next() || zero.Err() == nil {
		t.Error("a Members never Reset iterates or reports no error")
	}
}

// walkMembers walks the object it has started, reading each member's
// object value with a walk of its own: with Enter and Leave when enter
// is set, else with Next and a Members Reset on the value. It returns
// name=value@offset for each member, nested ones indented, and the
// walk's error.
func walkMembers(it *Members, enter bool, depth int) ([]string, error) {
	var out []string
	for {
		var inner []string
		if enter {
			if !it.NextKey() {
				break
			}
			var in Members
			if depth < 8 && it.Enter(&in) {
				inner, _ = walkMembers(&in, enter, depth+1)
				if !it.Leave(&in) {
					break
				}
			} else if !it.ReadValue() {
				break
			}
		} else {
			if !it.Next() {
				break
			}
			if depth < 8 && KindOf(it.Value()) == ValueObject {
				var in Members
				in.Reset(it.Value())
				inner, _ = walkMembers(&in, enter, depth+1)
			}
		}
		out = append(out, fmt.Sprintf("%s%s=%s@%d", strings.Repeat(" ", depth), it.Name(nil), it.Value(), it.Offset()))
		out = append(out, inner...)
	}
	return out, it.Err()
}

// TestMembers_enter: walking into members' objects with Enter and Leave
// reads what Next and a walk of each value read; a fault inside is the
// parent's, at its offset in the parent.
func TestMembers_enter(t *testing.T) {
	for _, in := range []string{
		`{}`,
		`{"a":{}}`,
		`{"a":{"b":1},"c":2}`,
		`{ "a" : { "b" : { "c" : [ {"d":{}} ] } } , "e" : {"f":"}"} }`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo"}`,
	} {
		var a, b Members
		a.Reset([]byte(in))
		b.Reset([]byte(in))
		want, werr := walkMembers(&a, false, 0)
		got, gerr := walkMembers(&b, true, 0)
		if werr != nil || gerr != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Enter reads %q, %v; Next reads %q, %v", in, got, gerr, want, werr)
		}
	}
	for _, tt := range []struct {
		in string
		at int64
	}{
		{`{"a":{"b":1 "c":2}}`, 12},
		{`{"a":{"b":}}`, 10},
		{`{"a":{"b":1}`, 12},
		{`{"a":{"b":1}} x`, 14},
	} {
		var it Members
		it.Reset([]byte(tt.in))
		_, err := walkMembers(&it, true, 0)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Offset != tt.at {
			t.Errorf("%s: error %v, want a *SyntaxError at %d", tt.in, err, tt.at)
		}
	}
	// Misuse: Enter on a value read or not an object; m moved before in
	// ended; Leave with a walk of nothing of m's.
	var it, in Members
	it.Reset([]byte(`{"a":1,"b":{"c":2,"d":3},"e":{}}`))
	if !it.Next() || it.Enter(&in) {
		t.Fatal("Enter after Next")
	}
	if !it.NextKey() || !it.Enter(&in) || !in.Next() {
		t.Fatal("Enter on b")
	}
	if !it.Leave(&in) || string(it.Value()) != `{"c":2,"d":3}` {
		t.Errorf("Leave before in's end: %q, %v", it.Value(), it.Err())
	}
	var other Members
	other.Reset([]byte(`{}`))
	if !it.NextKey() || !it.Leave(&other) || string(it.Value()) != `{}` || it.Next() || it.Err() != nil {
		t.Errorf("Leave with another walk: %q, %v", it.Value(), it.Err())
	}
	var zero Members
	if zero.Enter(&in) || zero.NextKey() || zero.ReadValue() || zero.Leave(&in) {
		t.Error("a Members never Reset enters or reads")
	}
	it.Reset([]byte(`{"a":1,"b":2}`))
	if !it.NextKey() || it.NextKey() || it.Err() == nil {
		t.Error("NextKey past a value unread gives no error")
	}
}
