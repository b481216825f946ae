package router_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// reqParams has one required member and one optional member of each kind.
type reqParams struct {
	A    int   `json:"a"`
	P    *int  `json:"p"`
	E    int   `json:"e,omitempty"`
	Z    int   `json:"z,omitzero"`
	I    point `json:"i,omitempty"` // optional, but when given, x and y are required
	Skip int   `json:"-"`
}

// wide has more required members than required.go keeps on the stack.
type wide struct {
	F0, F1, F2, F3, F4, F5, F6, F7, F8, F9, F10, F11, F12, F13, F14, F15, F16, F17 int
}

func TestFunc_required(t *testing.T) {
	ok := []struct {
		name   string
		h      router.Handler
		params string
		want   any
	}{
		{"pointer, omitempty, omitzero, json:- optional", echo[reqParams](), `{"a":1}`, reqParams{A: 1}},
		{"optional given", echo[reqParams](), `{"a":0,"p":null,"e":0,"z":0,"i":{"x":0,"y":0}}`, reqParams{}},
		{"positional/optional left out", echo[reqParams](), `[1]`, reqParams{A: 1}},
		{"nested/in pointer not checked", echo[shape](),
			`{"id":"s","name":"n","center":{"x":1,"y":2},"ptr":{}}`, shape{Base: Base{"s"}, Name: "n", Center: point{1, 2}, Ptr: &point{}}},
		{"embedded pointer's members optional", echo[embedPtr](), `{"n":0}`, embedPtr{}},
		{"escaped names", echo[subtractParams](), `{"\u006dinuend":0,"subtrahend":0}`, subtractParams{}},
		{"many members", echo[wide](),
			`{"F0":0,"F1":0,"F2":0,"F3":0,"F4":0,"F5":0,"F6":0,"F7":0,"F8":0,"F9":0,"F10":0,"F11":0,"F12":0,"F13":0,"F14":0,"F15":0,"F16":0,"F17":0}`, wide{}},
	}
	for _, tt := range ok {
		t.Run(tt.name, func(t *testing.T) {
			got, err := call(t, tt.h, tt.params)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %#v, %v; want %#v", got, err, tt.want)
			}
		})
	}

	missing := []struct {
		name   string
		h      router.Handler
		params string
		msg    string
		data   map[string]any
	}{
		{"by name", echo[subtractParams](), `{"minuend":1}`,
			`invalid params: field "subtrahend": missing required member`, map[string]any{"field": "subtrahend"}},
		{"by name/first in declaration order", echo[subtractParams](), `{}`,
			`invalid params: field "minuend": missing required member`, map[string]any{"field": "minuend"}},
		{"by name/name differs by case", echo[subtractParams](), `{"MINUEND":10,"subtrahend":3}`,
			`invalid params: field "minuend": missing required member`, map[string]any{"field": "minuend"}},
		{"by name/pointer P", echo[*subtractParams](), `{"subtrahend":1}`,
			`invalid params: field "minuend": missing required member`, map[string]any{"field": "minuend"}},
		{"by name/embedded", echo[shape](), `{"name":"n","center":{"x":1,"y":2}}`,
			`invalid params: field "id": missing required member`, map[string]any{"field": "id"}},
		{"by name/embedded pointer's sibling", echo[embedPtr](), `{"id":"x"}`,
			`invalid params: field "n": missing required member`, map[string]any{"field": "n"}},
		{"by name/many members", echo[wide](), `{"F0":1}`,
			`invalid params: field "F1": missing required member`, map[string]any{"field": "F1"}},
		{"by position/one short", echo[subtractParams](), `[1]`,
			`invalid params: too few elements: 1 given, element 1 ("subtrahend") is required`, map[string]any{"field": "subtrahend", "index": 1}},
		{"by position/none", echo[subtractParams](), `[]`,
			`invalid params: too few elements: 0 given, element 0 ("minuend") is required`, map[string]any{"field": "minuend", "index": 0}},
		{"by position/pointer P", echo[*subtractParams](), `[1]`,
			`invalid params: too few elements: 1 given, element 1 ("subtrahend") is required`, map[string]any{"field": "subtrahend", "index": 1}},
		{"nested/by name", echo[shape](), `{"id":"s","name":"n","center":{"x":1}}`,
			`invalid params: field "center.y": missing required member`, map[string]any{"field": "center.y"}},
		{"nested/in optional member given", echo[reqParams](), `{"a":1,"i":{"y":1}}`,
			`invalid params: field "i.x": missing required member`, map[string]any{"field": "i.x"}},
		{"nested/by position", echo[shape](), `["s","n",{"y":2}]`,
			`invalid params: element 2 ("center.x"): missing required member`, map[string]any{"field": "center.x", "index": 2}},
		{"type errors come first", echo[subtractParams](), `{"minuend":"x"}`,
			`invalid params: field "minuend": cannot use string as int`, map[string]any{"field": "minuend"}},
	}
	for _, tt := range missing {
		t.Run(tt.name, func(t *testing.T) {
			_, err := call(t, tt.h, tt.params)
			var e *codec.Error
			if !errors.As(err, &e) || !errors.Is(err, codec.ErrInvalidParams) {
				t.Fatalf("error %v (%T), want a -32602 *codec.Error", err, err)
			}
			if e.Message != tt.msg {
				t.Errorf("message\n got %s\nwant %s", e.Message, tt.msg)
			}
			if !reflect.DeepEqual(e.Data, tt.data) {
				t.Errorf("data %#v, want %#v", e.Data, tt.data)
			}
		})
	}
}

// TestFunc_rawField: a codec.Raw member receives its JSON verbatim, by name
// and by position, and keeps it after the request's buffer is reused.
func TestFunc_rawField(t *testing.T) {
	type toolCall struct {
		Name string    `json:"name"`
		Args codec.Raw `json:"arguments"`
		Meta codec.Raw `json:"_meta,omitempty"`
	}
	h := echo[toolCall]()
	tests := []struct {
		params string
		want   toolCall
	}{
		{`{"name":"echo","arguments":{"text": "h\u00e9", "n": [1, 2]}}`, toolCall{"echo", codec.Raw(`{"text": "h\u00e9", "n": [1, 2]}`), nil}},
		{`{"name":"echo","arguments":null,"_meta":"x"}`, toolCall{"echo", codec.Raw(`null`), codec.Raw(`"x"`)}},
		{`["echo", [1, "two"]]`, toolCall{"echo", codec.Raw(`[1, "two"]`), nil}},
	}
	for _, tt := range tests {
		buf := []byte(tt.params)
		got, err := h.Handle(context.Background(), &router.Request{Method: "m", ID: []byte("1"), Params: buf})
		for i := range buf {
			buf[i] = 'x'
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %#v, %v; want %#v", tt.params, got, err, tt.want)
		}
	}
}
