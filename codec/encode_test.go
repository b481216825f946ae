package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

var encodeIDs = []string{`1`, `1.50`, `12345678901234567890`, `-0`, `1e400`, `"\u00e9"`, `"é"`, `"a\"b"`, `null`, `""`}

// encodeIDMember extracts the raw id member of an encoded envelope.
func encodeIDMember(t *testing.T, out []byte) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("output %s is not JSON: %v", out, err)
	}
	return string(m["id"])
}

func TestAppendResult(t *testing.T) {
	cases := []struct {
		id, result []byte
		want       string
	}{
		{[]byte(`1`), []byte(`{"a":[1,2]}`), `{"jsonrpc":"2.0","id":1,"result":{"a":[1,2]}}`},
		{nil, nil, `{"jsonrpc":"2.0","id":null,"result":null}`},
		{[]byte(`"x"`), []byte{}, `{"jsonrpc":"2.0","id":"x","result":null}`},
		{[]byte{}, []byte(`true`), `{"jsonrpc":"2.0","id":null,"result":true}`},
	}
	for _, c := range cases {
		got := AppendResult([]byte("prefix"), c.id, c.result)
		if string(got) != "prefix"+c.want {
			t.Errorf("AppendResult(%q, %q) = %s, want %s", c.id, c.result, got, c.want)
		}
	}
	for _, id := range encodeIDs {
		out := AppendResult(nil, []byte(id), []byte(`{}`))
		if got := encodeIDMember(t, out); got != id {
			t.Errorf("id %s echoed as %s", id, got)
		}
	}
}

type encodeSmall struct {
	Name  string   `json:"name"`
	Count int      `json:"count"`
	Tags  []string `json:"tags,omitempty"`
}

type encodeNested struct {
	Raw  Raw             `json:"raw"`
	JSON json.RawMessage `json:"json"`
	Ptr  *int            `json:"ptr"`
}

func TestAppendResultValue(t *testing.T) {
	n := 7
	cases := []struct {
		name string
		v    any
		want string // the result member
	}{
		{"struct", encodeSmall{Name: "a", Count: 2}, `{"name":"a","count":2}`},
		{"pointer", &encodeSmall{Name: "<b>", Tags: []string{"x"}}, `{"name":"<b>","count":0,"tags":["x"]}`},
		{"nil", nil, `null`},
		{"raw", Raw(`{"k":1}`), `{"k":1}`},
		{"raw empty", Raw(nil), `null`},
		{"raw message", json.RawMessage(`[1, 2]`), `[1, 2]`},
		{"bytes are base64", []byte("hi"), `"aGk="`},
		{"string invalid utf8", "a\xffb", `"a\ufffdb"`},
		{"string escapes", "q\"\\\n\x01é", `"q\"\\\n\u0001é"`},
		{"map", map[string]int{"a": 1}, `{"a":1}`},
		{"nil slice", []int(nil), `null`},
		{"nested raw", encodeNested{Raw: Raw(`{"x":true}`), JSON: json.RawMessage(`"s"`), Ptr: &n},
			`{"raw":{"x":true},"json":"s","ptr":7}`},
		{"nested raw empty", encodeNested{}, `{"raw":null,"json":null,"ptr":null}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := AppendResultValue([]byte("p"), []byte(`3`), c.v)
			if err != nil {
				t.Fatal(err)
			}
			want := `p{"jsonrpc":"2.0","id":3,"result":` + c.want + `}`
			if string(out) != want {
				t.Errorf("got  %s\nwant %s", out, want)
			}
			if !json.Valid(out[1:]) {
				t.Errorf("not valid JSON: %s", out)
			}
		})
	}
}

func TestAppendResultValue_errorLeavesDst(t *testing.T) {
	for _, v := range []any{math.NaN(), make(chan int), map[string]any{"f": math.Inf(1)}} {
		dst := []byte("keep")
		out, err := AppendResultValue(dst, []byte(`1`), v)
		if err == nil {
			t.Errorf("%T: no error", v)
		}
		if string(out) != "keep" {
			t.Errorf("%T: dst changed to %q", v, out)
		}
	}
}

// TestAppendValue_inPlace: sonic encodes into dst's spare capacity, and the
// result is the same whatever the capacity.
func TestAppendValue_inPlace(t *testing.T) {
	v := encodeSmall{Name: strings.Repeat("n", 1000), Count: 1}
	want, _ := json.Marshal(v)
	for _, c := range []int{0, 1, 10, 300, 5000} {
		dst := make([]byte, 2, 2+c)
		copy(dst, "ab")
		out, err := AppendValue(dst, v)
		if err != nil || string(out) != "ab"+string(want) {
			t.Errorf("cap %d: %s, %v", c, out, err)
		}
		if c >= 5000 && &out[0] != &dst[0] {
			t.Errorf("cap %d: not encoded in place", c)
		}
	}
}

func TestAppendError(t *testing.T) {
	cases := []struct {
		name string
		id   []byte
		e    *Error
		want string
	}{
		{"ready-made", []byte(`1`), ErrMethodNotFound,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`},
		{"null id", nil, ErrParse, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
		{"nil error", []byte(`"a"`), nil,
			`{"jsonrpc":"2.0","id":"a","error":{"code":-32603,"message":"Internal error"}}`},
		{"raw data", []byte(`2`), ErrInvalidParams.WithData(Raw(`{"field":"x"}`)),
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params","data":{"field":"x"}}}`},
		{"value data", []byte(`2`), NewError(CodeOverloaded, "").WithData(map[string]int{"retryAfterMs": 50}),
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"Server overloaded","data":{"retryAfterMs":50}}}`},
		{"bad data dropped", []byte(`2`), ErrInternal.WithData(make(chan int)),
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error"}}`},
		{"escaped message", []byte(`2`), &Error{Code: 7, Message: "bad \"x\"\n\xff"},
			`{"jsonrpc":"2.0","id":2,"error":{"code":7,"message":"bad \"x\"\n\ufffd"}}`},
		{"empty message", []byte(`2`), &Error{Code: -1}, `{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":""}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := AppendError(nil, c.id, c.e)
			if string(out) != c.want {
				t.Errorf("got  %s\nwant %s", out, c.want)
			}
			var env struct {
				Error struct {
					Code    int
					Message string
				}
			}
			if err := json.Unmarshal(out, &env); err != nil {
				t.Fatal(err)
			}
		})
	}
	for _, id := range encodeIDs {
		if got := encodeIDMember(t, AppendError(nil, []byte(id), ErrParse)); got != id {
			t.Errorf("id %s echoed as %s", id, got)
		}
	}
}

func TestAppendRequest(t *testing.T) {
	cases := []struct {
		id     []byte
		method string
		params []byte
		want   string
	}{
		{[]byte(`1`), "tools/call", []byte(`{"name":"x"}`), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`},
		{nil, "notifications/initialized", nil, `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{[]byte(`"r"`), "m\"\\", []byte{}, `{"jsonrpc":"2.0","id":"r","method":"m\"\\"}`},
		{[]byte{}, "a", []byte(`[]`), `{"jsonrpc":"2.0","id":null,"method":"a","params":[]}`},
	}
	for _, c := range cases {
		if got := AppendRequest(nil, c.id, c.method, c.params); string(got) != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

func TestAppendString_escaping(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", `""`},
		{"plain ascii ~!@#$%^&*()<>", `"plain ascii ~!@#$%^&*()<>"`},
		{`"`, `"\""`},
		{`\`, `"\\"`},
		{"\n\r\t\b\f", `"\n\r\t\b\f"`},
		{"\x00\x01\x1f\x7f", `"\u0000\u0001\u001f` + "\x7f" + `"`},
		{"é€😀", `"é€😀"`},
		{"\u2028\u2029", "\"\u2028\u2029\""},
		{"a\xffb", `"a\ufffdb"`},
		{"\xc3", `"\ufffd"`},                     // truncated sequence
		{"\xc3\x28", `"\ufffd("`},                // bad continuation
		{"\xed\xa0\x80", `"\ufffd\ufffd\ufffd"`}, // surrogate half
		{"\xf4\x90\x80\x80", `"\ufffd\ufffd\ufffd\ufffd"`},
		{"x\"\xff\ny", `"x\"\ufffd\ny"`},
	}
	for _, c := range cases {
		got := appendString([]byte("<"), c.in)
		if string(got) != "<"+c.want {
			t.Errorf("appendString(%q) = %s, want %s", c.in, got[1:], c.want)
			continue
		}
		var back string
		if err := json.Unmarshal(got[1:], &back); err != nil {
			t.Errorf("appendString(%q): %v", c.in, err)
		} else if want := string([]rune(c.in)); back != want {
			t.Errorf("appendString(%q) decodes to %q, want %q", c.in, back, want)
		}
	}
}

func TestAppend_outputsRoundTrip(t *testing.T) {
	type env struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	decode := func(b []byte) env {
		var e env
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return e
	}
	e := decode(AppendRequest(nil, []byte(`12345678901234567890`), "tools/list", []byte(`{"cursor":"c"}`)))
	if e.JSONRPC != "2.0" || string(e.ID) != `12345678901234567890` || e.Method != "tools/list" || string(e.Params) != `{"cursor":"c"}` {
		t.Errorf("request: %+v", e)
	}
	out, _ := AppendResultValue(nil, []byte(`"\u00e9"`), encodeSmall{Name: "n", Count: 3, Tags: []string{"a"}})
	e = decode(out)
	var s encodeSmall
	if err := json.Unmarshal(e.Result, &s); err != nil || !reflect.DeepEqual(s, encodeSmall{Name: "n", Count: 3, Tags: []string{"a"}}) {
		t.Errorf("result: %+v, %v", s, err)
	}
	e = decode(AppendError(nil, []byte(`1.50`), ErrInvalidParams.WithData(map[string]string{"field": "uri"})))
	if e.Error == nil || e.Error.Code != -32602 || e.Error.Message != "Invalid params" || string(e.Error.Data) != `{"field":"uri"}` || string(e.ID) != "1.50" {
		t.Errorf("error: %+v", e)
	}
}

type encodePretty struct{}

func (encodePretty) MarshalJSON() ([]byte, error) { return []byte("{\n  \"a\": [1, 2]\n}"), nil }

type encodeBroken struct{}

func (encodeBroken) MarshalJSON() ([]byte, error) { return []byte("{"), nil }

// TestAppendValue_marshalers: a json.Marshaler's output is validated and
// compacted, as encoding/json does.
func TestAppendValue_marshalers(t *testing.T) {
	out, err := AppendValue(nil, []any{encodePretty{}, Raw("[ 1 ,\n2 ]")})
	if err != nil || string(out) != `[{"a":[1,2]},[1,2]]` {
		t.Errorf("got %s, %v", out, err)
	}
	if out, err := AppendValue([]byte("x"), []any{encodeBroken{}}); err == nil || string(out) != "x" {
		t.Errorf("broken marshaler: %s, %v", out, err)
	}
}

// encodeSelf appends itself as an Appender: n as a one-member object, or
// an error when n is negative (after writing a piece, which must not
// stay).
type encodeSelf struct{ N int }

func (e *encodeSelf) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"self":`...)
	if e.N < 0 {
		return dst, errors.New("negative")
	}
	return append(strconv.AppendInt(dst, int64(e.N), 10), '}'), nil
}

// TestAppendValue_appender: a value that is an Appender appends itself,
// with no allocation; nested in another value it is sonic's (its
// fields); its error leaves dst as it was.
func TestAppendValue_appender(t *testing.T) {
	v := &encodeSelf{N: 7}
	if out, err := AppendValue([]byte("x"), v); err != nil || string(out) != `x{"self":7}` {
		t.Errorf("top level: %s, %v", out, err)
	}
	if out, err := AppendValue(nil, []any{v}); err != nil || string(out) != `[{"N":7}]` {
		t.Errorf("nested: %s, %v", out, err)
	}
	if out, err := AppendResultValue([]byte("keep"), []byte(`1`), &encodeSelf{N: -1}); err == nil || string(out) != "keep" {
		t.Errorf("failing: %s, %v", out, err)
	}
	dst := make([]byte, 0, 64)
	var in any = v
	if n := testing.AllocsPerRun(100, func() { dst, _ = AppendValue(dst[:0], in) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

func TestRaw_MarshalJSON(t *testing.T) {
	b, err := json.Marshal(struct{ R Raw }{Raw(`[1]`)})
	if err != nil || string(b) != `{"R":[1]}` {
		t.Errorf("encoding/json: %s, %v", b, err)
	}
	b, err = json.Marshal(struct{ R Raw }{})
	if err != nil || string(b) != `{"R":null}` {
		t.Errorf("encoding/json empty: %s, %v", b, err)
	}
}

func TestBufferPool(t *testing.T) {
	var p BufferPool
	b := p.Get()
	b.B = AppendResult(b.B, []byte(`1`), []byte(`2`))
	if got := string(b.B); got != `{"jsonrpc":"2.0","id":1,"result":2}` {
		t.Errorf("got %s", got)
	}
	p.Put(b)
	if b := p.Get(); len(b.B) != 0 {
		t.Errorf("pooled buffer not empty: %q", b.B)
	}
}
