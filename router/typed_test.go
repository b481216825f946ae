package router_test

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

type subtractParams struct {
	Minuend    int `json:"minuend"`
	Subtrahend int `json:"subtrahend"`
}

type point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

type Base struct {
	ID string `json:"id"`
}

type shape struct {
	Base            // promoted: first positional field
	Name   string   `json:"name"`
	Hidden string   `json:"-"`
	secret string   // unexported: never decoded
	Center point    `json:"center"`
	Tags   []string `json:"tags,omitempty"`
	Level  int8     `json:"level,omitzero"`
	Ptr    *point   `json:"ptr"`
}

// optParams has only optional members.
type optParams struct {
	P *int `json:"p"`
	E int  `json:"e,omitempty"`
	Z int  `json:"z,omitzero"`
}

type level int

type custom struct{ v string }

func (c *custom) UnmarshalJSON(b []byte) error {
	if string(b) == `"bad"` {
		return errors.New("custom says no")
	}
	c.v = string(b)
	return nil
}

type withCustom struct {
	C custom `json:"c"`
}

type embedPtr struct {
	*Base
	N int `json:"n"`
}

// echo returns a handler that returns its decoded params.
func echo[P any]() router.Handler {
	return router.Func(func(_ context.Context, p P) (P, error) { return p, nil })
}

func call(t *testing.T, h router.Handler, params string) (any, error) {
	t.Helper()
	req := &router.Request{Method: "m", ID: []byte("1")}
	if params != "" {
		req.Params = []byte(params)
	}
	return h.Handle(context.Background(), req)
}

func TestFunc_decodes(t *testing.T) {
	tests := []struct {
		name   string
		h      router.Handler
		params string
		want   any
	}{
		{"named", echo[subtractParams](), `{"minuend":42,"subtrahend":23}`, subtractParams{42, 23}},
		{"named/reordered", echo[subtractParams](), `{"subtrahend":23,"minuend":42}`, subtractParams{42, 23}},
		{"named/unknown ignored", echo[subtractParams](), `{"minuend":1,"subtrahend":0,"other":[1,{"a":2}]}`, subtractParams{Minuend: 1}},
		{"named/escaped key", echo[subtractParams](), `{"m\u0069nuend":0,"subtrahend":5}`, subtractParams{Subtrahend: 5}},
		{"named/zero values", echo[subtractParams](), `{"minuend":0,"subtrahend":0}`, subtractParams{}},
		{"named/null is present", echo[subtractParams](), `{"minuend":null,"subtrahend":2}`, subtractParams{Subtrahend: 2}},
		{"named/empty", echo[optParams](), `{}`, optParams{}},
		{"absent", echo[subtractParams](), ``, subtractParams{}},
		{"positional", echo[subtractParams](), `[42, 23]`, subtractParams{42, 23}},
		{"positional/fewer", echo[optParams](), `[null, 2]`, optParams{E: 2}},
		{"positional/empty", echo[optParams](), ` [ ] `, optParams{}},
		{"positional/null element", echo[subtractParams](), `[null, 3]`, subtractParams{Subtrahend: 3}},
		{"positional/pointer P", echo[*subtractParams](), `[1,2]`, &subtractParams{1, 2}},
		{"named/pointer P", echo[*subtractParams](), `{"minuend":1,"subtrahend":0}`, &subtractParams{Minuend: 1}},
		{"positional/embedded and skipped", echo[shape](), `["s1","sq",{"x":1,"y":2},["a"],3,{"x":4}]`,
			shape{Base: Base{"s1"}, Name: "sq", Center: point{1, 2}, Tags: []string{"a"}, Level: 3, Ptr: &point{X: 4}}},
		{"positional/embedded pointer", echo[embedPtr](), `["b", 7]`, embedPtr{Base: &Base{"b"}, N: 7}},
		{"named/embedded", echo[shape](), `{"id":"s1","name":"","center":{"x":1,"y":0}}`, shape{Base: Base{"s1"}, Center: point{X: 1}}},
		{"slice", echo[[]int](), `[1,2,3]`, []int{1, 2, 3}},
		{"array", echo[[2]string](), `["a","b"]`, [2]string{"a", "b"}},
		{"map", echo[map[string]int](), `{"a":1,"b":2}`, map[string]int{"a": 1, "b": 2}},
		{"any/object", echo[any](), `{"a":1}`, map[string]any{"a": float64(1)}},
		{"any/array", echo[any](), `[true,"x"]`, []any{true, "x"}},
		{"named scalar type", echo[map[string]level](), `{"a":1}`, map[string]level{"a": 1}},
		{"raw", echo[codec.Raw](), `{"a": [1, 2]}`, codec.Raw(`{"a": [1, 2]}`)},
		{"custom", echo[withCustom](), `{"c":"ok"}`, withCustom{custom{`"ok"`}}},
		{"time", echo[struct {
			T time.Time `json:"t"`
		}](), `{"t":"2025-01-02T03:04:05Z"}`, struct {
			T time.Time `json:"t"`
		}{time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := call(t, tt.h, tt.params)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestFunc_mismatch(t *testing.T) {
	tests := []struct {
		name   string
		h      router.Handler
		params string
		msg    string
		data   map[string]any
	}{
		{"named/string for int", echo[subtractParams](), `{"minuend":"x","subtrahend":1}`,
			`invalid params: field "minuend": cannot use string as int`, map[string]any{"field": "minuend"}},
		{"named/second field", echo[subtractParams](), `{"minuend":1,"subtrahend":true}`,
			`invalid params: field "subtrahend": cannot use boolean as int`, map[string]any{"field": "subtrahend"}},
		{"named/fraction for int", echo[subtractParams](), `{"minuend":1.5}`,
			`invalid params: field "minuend": cannot use number 1.5 as int`, map[string]any{"field": "minuend"}},
		{"named/nested", echo[shape](), `{"center":{"x":1,"y":"2"}}`,
			`invalid params: field "center.y": cannot use string as int`, map[string]any{"field": "center.y"}},
		{"named/in slice", echo[shape](), `{"tags":["a",2]}`,
			`invalid params: field "tags[1]": cannot use number 2 as string`, map[string]any{"field": "tags[1]"}},
		{"named/object for struct field", echo[shape](), `{"center":[1,2]}`,
			`invalid params: field "center": cannot use array as object`, map[string]any{"field": "center"}},
		{"named/pointer field", echo[shape](), `{"ptr":{"x":"1"}}`,
			`invalid params: field "ptr.x": cannot use string as int`, map[string]any{"field": "ptr.x"}},
		{"named/out of range", echo[shape](), `{"name":"n","level":300}`,
			`invalid params: field "level": cannot use number 300 as int8`, map[string]any{"field": "level"}},
		{"named/negative for uint", echo[map[string]uint](), `{"a":1,"b":-1}`,
			`invalid params: field "b": cannot use number -1 as uint`, map[string]any{"field": "b"}},
		{"named/custom decoder error", echo[withCustom](), `{"c":"bad"}`,
			`invalid params: field "c": custom says no`, map[string]any{"field": "c"}},
		{"named/map value", echo[map[string]int](), `{"a":1,"b":"x"}`,
			`invalid params: field "b": cannot use string as int`, map[string]any{"field": "b"}},
		{"named/escaped map key", echo[map[string]int](), `{"\u0062":"x"}`,
			`invalid params: field "b": cannot use string as int`, map[string]any{"field": "b"}},
		{"named/object for slice", echo[[]int](), `{"a":1}`,
			`invalid params: cannot use object as array`, nil},
		{"positional/array for map", echo[map[string]int](), `[1]`,
			`invalid params: cannot use array as object`, nil},
		{"positional/string for int", echo[subtractParams](), `[1,"x"]`,
			`invalid params: element 1 ("subtrahend"): cannot use string as int`, map[string]any{"field": "subtrahend", "index": 1}},
		{"positional/first", echo[subtractParams](), `[{}]`,
			`invalid params: element 0 ("minuend"): cannot use object as int`, map[string]any{"field": "minuend", "index": 0}},
		{"positional/too many", echo[subtractParams](), `[1,2,3,4]`,
			`invalid params: too many elements: 4 given, at most 2 accepted`, map[string]any{"index": 2}},
		{"positional/nested", echo[shape](), `["id","n",{"x":"1"}]`,
			`invalid params: element 2 ("center.x"): cannot use string as int`, map[string]any{"field": "center.x", "index": 2}},
		{"positional/out of range", echo[shape](), `["id","n",{"x":0,"y":0},[],-129]`,
			`invalid params: element 4 ("level"): cannot use number -129 as int8`, map[string]any{"field": "level", "index": 4}},
		{"positional/pointer P", echo[*subtractParams](), `["a"]`,
			`invalid params: element 0 ("minuend"): cannot use string as int`, map[string]any{"field": "minuend", "index": 0}},
		{"slice/element", echo[[]int](), `[1,"x"]`,
			`invalid params: element 1: cannot use string as int`, map[string]any{"field": "[1]", "index": 1}},
		{"slice/nested", echo[[]point](), `[{"x":1},{"y":[]}]`,
			`invalid params: element 1: field "y": cannot use array as int`, map[string]any{"field": "[1].y", "index": 1}},
		{"slice/out of range", echo[[]uint8](), `[1,256]`,
			`invalid params: element 1: cannot use number 256 as uint8`, map[string]any{"field": "[1]", "index": 1}},
		{"raw bytes field", echo[struct {
			B []byte `json:"b"`
		}](), `{"b":1}`,
			`invalid params: field "b": cannot use number 1 as base64 string`, map[string]any{"field": "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := call(t, tt.h, tt.params)
			var e *codec.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want a *codec.Error", err, err)
			}
			if e.Code != codec.CodeInvalidParams {
				t.Errorf("code %d, want %d", e.Code, codec.CodeInvalidParams)
			}
			if !errors.Is(err, codec.ErrInvalidParams) {
				t.Errorf("errors.Is(err, codec.ErrInvalidParams) = false")
			}
			if e.Message != tt.msg {
				t.Errorf("message\n got %s\nwant %s", e.Message, tt.msg)
			}
			if tt.data == nil {
				if e.Data != nil {
					t.Errorf("data %#v, want nil", e.Data)
				}
			} else if !reflect.DeepEqual(e.Data, tt.data) {
				t.Errorf("data %#v, want %#v", e.Data, tt.data)
			}
		})
	}
}

func TestFunc_handlerError(t *testing.T) {
	want := codec.NewError(codec.CodeInvalidParams, "negative")
	h := router.Func(func(_ context.Context, n int) (int, error) {
		if n < 0 {
			return 0, want
		}
		return n, nil
	})
	res, err := call(t, h, ``)
	if err != nil || res != 0 {
		t.Fatalf("got %v, %v", res, err)
	}
	// A scalar P cannot come from a request (params are arrays or objects);
	// a direct caller gets the decoder's verdict.
	if _, err := call(t, h, `-1`); err != want {
		t.Fatalf("got %v, want %v", err, want)
	}
}

func TestFunc_keepsStringsAfterBufferReuse(t *testing.T) {
	var kept subtractParamsS
	h := router.Func(func(_ context.Context, p subtractParamsS) (struct{}, error) {
		kept = p
		return struct{}{}, nil
	})
	buf := []byte(`{"A":"hello","B":"world"}`)
	if _, err := h.Handle(context.Background(), &router.Request{Params: buf}); err != nil {
		t.Fatal(err)
	}
	for i := range buf {
		buf[i] = 'x' // the connection reuses its buffer
	}
	if kept.A != "hello" || kept.B != "world" {
		t.Fatalf("kept %+v after buffer reuse", kept)
	}
}

type subtractParamsS struct{ A, B string }

// The P a call's params are decoded into is pooled: nothing of one call
// shows in the next, whatever the next's params leave out, and a value
// a handler kept is its own.
func TestFunc_pooledParamsStartEmpty(t *testing.T) {
	type params struct {
		A    string         `json:"a"`
		B    string         `json:"b,omitempty"`
		List []int          `json:"list,omitempty"`
		Map  map[string]int `json:"map,omitempty"`
		Ptr  *int           `json:"ptr,omitempty"`
	}
	var seen []params
	h := router.Func(func(_ context.Context, p params) (struct{}, error) {
		seen = append(seen, p)
		return struct{}{}, nil
	})
	for _, ps := range []string{`{"a":"x","b":"y","list":[1,2],"map":{"k":1},"ptr":7}`, `{"a":"z"}`, `{"a":1}`, `{"a":"w"}`} {
		h.Handle(context.Background(), &router.Request{Params: []byte(ps)}) // the third fails: a is a string
	}
	if len(seen) != 3 {
		t.Fatalf("%d calls reached the handler, want 3", len(seen))
	}
	if first := seen[0]; first.B != "y" || len(first.List) != 2 || first.Map["k"] != 1 || *first.Ptr != 7 {
		t.Errorf("the first call's params, kept: %+v", first)
	}
	for _, later := range seen[1:] {
		if later.B != "" || later.List != nil || later.Map != nil || later.Ptr != nil {
			t.Errorf("a later call saw an earlier one's params: %+v", later)
		}
	}
}

func TestFunc_nilPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	router.Func[int, int](nil)
}

func TestFunc_manyFields(t *testing.T) {
	type many struct{ A, B, C, D, E, F, G, H, I, J, K, L int }
	h := echo[many]()
	params := "["
	for i := range 12 {
		if i > 0 {
			params += ","
		}
		params += strconv.Itoa(i)
	}
	got, err := call(t, h, params+"]")
	if err != nil {
		t.Fatal(err)
	}
	if got.(many).L != 11 {
		t.Fatalf("got %+v", got)
	}
}

var _ = shape{}.secret // declared to check that unexported fields take no position
