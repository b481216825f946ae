package router

import (
	"reflect"
	"testing"
)

type memA struct {
	X int // ties with memB.X: neither is a member
	Y int // loses to memB.V, tagged
	Z int `json:"z"` // loses to members.Z, shallower
}

type memB struct {
	X int
	V int `json:"Y"`
	W int
}

type memC struct {
	V int `json:"v"`
}

type MemE struct {
	E int `json:"e"`
}

type members struct {
	memA
	memB
	*memC // an unexported embedded pointer: not followed
	*MemE
	memD
	Z      int  `json:"z"`
	Named  memC `json:"named"`
	Skip   int  `json:"-"`
	hidden int
}

type memD struct {
	Q int `json:"q,omitempty"`
}

// TestStructFields_areTheDecodersMembers: the members of a struct type
// and the fields they fill are encoding/json's, as the decoder applies
// them (ties hide a name, a tagged field wins a tie, the shallowest field
// wins), in declaration order.
func TestStructFields_areTheDecodersMembers(t *testing.T) {
	type want struct {
		name     string
		index    []int
		optional bool
		viaPtr   bool
	}
	var got []want
	for _, f := range structFields(reflect.TypeFor[members]()) {
		got = append(got, want{f.name, f.index, f.optional, f.viaPtr})
	}
	exp := []want{
		{"Y", []int{1, 1}, false, false},
		{"W", []int{1, 2}, false, false},
		{"e", []int{3, 0}, true, true},
		{"q", []int{4, 0}, true, false},
		{"z", []int{5}, false, false},
		{"named", []int{6}, false, false},
	}
	if !reflect.DeepEqual(got, exp) {
		t.Fatalf("members\n got %+v\nwant %+v", got, exp)
	}
	var m members
	_ = members{}.hidden
	_ = m.memC
}
