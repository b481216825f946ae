package bench

// Prototypes of the changes README.md suggests for mcp/, measured against
// what mcp does now: BenchmarkPrototype/… (not run by run.sh, whose
// default pattern is ToolsCall).

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
)

var protoArgs = []byte(`{"message":"hello, world"}`)
var schemaJSON = []byte(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"],"additionalProperties":false}`)
var protoResult = []byte(`{"content":[{"type":"text","text":"hello, world"}]}`)

// As mcp's compiledSchema.validate does it.
func protoValidate_jsonschema(b *testing.B) {
	var s jsonschema.Schema
	if err := json.Unmarshal(schemaJSON, &s); err != nil {
		b.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var v any
		if err := codec.Unmarshal(protoArgs, &v); err != nil {
			b.Fatal(err)
		}
		if err := rs.Validate(v); err != nil {
			b.Fatal(err)
		}
	}
}

// A flat fast path: an object whose members are named properties of
// primitive types, required ones present, no others. data is valid JSON
// (the scanner checked it): a walk over its top level is enough.
type flatSchema struct {
	props    map[string]byte // name → 's' string, 'n' number, 'b' boolean
	required []string
}

var errInvalid = errors.New("invalid")

func (f *flatSchema) validate(data []byte) error {
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '{' {
		return errInvalid
	}
	seen := uint64(0)
	i = skipWS(data, i+1)
	if data[i] == '}' {
		return f.checkRequired(seen)
	}
	for {
		if data[i] != '"' {
			return errInvalid
		}
		j := endString(data, i)
		name := data[i+1 : j-1] // escapes would need AppendUnescaped; none here
		i = skipWS(data, j)
		i = skipWS(data, i+1) // ':'
		kind, ok := f.props[string(name)]
		if !ok {
			return errInvalid
		}
		for k, r := range f.required {
			if r == string(name) {
				seen |= 1 << k
			}
		}
		switch kind {
		case 's':
			if data[i] != '"' {
				return errInvalid
			}
			i = endString(data, i)
		default:
			return errInvalid
		}
		i = skipWS(data, i)
		if data[i] == '}' {
			return f.checkRequired(seen)
		}
		i = skipWS(data, i+1) // ','
	}
}

func (f *flatSchema) checkRequired(seen uint64) error {
	if seen != 1<<len(f.required)-1 {
		return errInvalid
	}
	return nil
}

func skipWS(d []byte, i int) int {
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r') {
		i++
	}
	return i
}

// endString returns the index after the closing quote of the string at i.
func endString(d []byte, i int) int {
	for i++; i < len(d); i++ {
		switch d[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

func protoValidate_flat(b *testing.B) {
	f := &flatSchema{props: map[string]byte{"message": 's'}, required: []string{"message"}}
	b.ReportAllocs()
	for b.Loop() {
		if err := f.validate(protoArgs); err != nil {
			b.Fatal(err)
		}
	}
}

// As mcp's client does it: ClientSession.call decodes into a
// CallToolResult, whose UnmarshalJSON decodes again, contentList again,
// UnmarshalContent twice.
func protoDecodeResult_nested(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var r mcp.CallToolResult
		if err := codec.UnmarshalExact(protoResult, &r); err != nil || r.Content[0].(*mcp.TextContent).Text != "hello, world" {
			b.Fatal(r, err)
		}
	}
}

// One pass into a wire struct holding every content type's members, then
// the typed blocks.
type wireBlock struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Data     string          `json:"data"`
	MIMEType string          `json:"mimeType"`
	URI      string          `json:"uri"`
	Name     string          `json:"name"`
	Meta     mcp.Meta        `json:"_meta"`
	Resource json.RawMessage `json:"resource"`
}

type wireResult struct {
	Meta              mcp.Meta        `json:"_meta"`
	Content           []wireBlock     `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func protoDecodeResult_onePass(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var w wireResult
		if err := codec.UnmarshalExact(protoResult, &w); err != nil {
			b.Fatal(err)
		}
		r := &mcp.CallToolResult{Meta: w.Meta, IsError: w.IsError, Content: make([]mcp.Content, len(w.Content))}
		for i, c := range w.Content {
			if c.Type == "text" {
				r.Content[i] = &mcp.TextContent{Text: c.Text, Meta: c.Meta}
			}
		}
		if r.Content[0].(*mcp.TextContent).Text != "hello, world" {
			b.Fatal(r)
		}
	}
}

// As the client does it: arguments encoded to raw JSON, then the params
// holding them encoded again.
func protoEncodeParams_twice(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		raw, err := codec.AppendValue(nil, echoArgs{Message: "hello, world"})
		if err != nil {
			b.Fatal(err)
		}
		p := &mcp.CallToolParams{Name: "echo", Arguments: raw}
		out, err := codec.AppendValue(make([]byte, 0, 256), p)
		if err != nil || len(out) == 0 {
			b.Fatal(err)
		}
	}
}

func protoEncodeParams_once(b *testing.B) {
	type params struct {
		Name      string `json:"name"`
		Arguments any    `json:"arguments,omitempty"`
	}
	b.ReportAllocs()
	for b.Loop() {
		out, err := codec.AppendValue(make([]byte, 0, 256), &params{"echo", echoArgs{Message: "hello, world"}})
		if err != nil || len(out) == 0 {
			b.Fatal(err)
		}
	}
}

func BenchmarkPrototype(b *testing.B) {
	for _, c := range []struct {
		name string
		f    func(*testing.B)
	}{
		{"validate/how=jsonschema", protoValidate_jsonschema},
		{"validate/how=flat", protoValidate_flat},
		{"decode-result/how=nested", protoDecodeResult_nested},
		{"decode-result/how=one-pass", protoDecodeResult_onePass},
		{"encode-params/how=twice", protoEncodeParams_twice},
		{"encode-params/how=once", protoEncodeParams_once},
	} {
		b.Run(c.name, c.f)
	}
}

func TestPrototype_flatSchemaAgreesWithJSONSchema(t *testing.T) {
	var js jsonschema.Schema
	if err := json.Unmarshal(schemaJSON, &js); err != nil {
		t.Fatal(err)
	}
	rs, err := js.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &flatSchema{props: map[string]byte{"message": 's'}, required: []string{"message"}}
	for _, in := range []string{
		`{"message":"hi"}`, ` { "message" : "a\"b" } `, `{}`, `{"message":1}`,
		`{"message":"hi","x":"y"}`, `{"Message":"hi"}`, `{"message":null}`,
	} {
		var v any
		if err := codec.Unmarshal([]byte(in), &v); err != nil {
			t.Fatal(err)
		}
		want := rs.Validate(v) == nil
		if got := f.validate([]byte(in)) == nil; got != want {
			t.Errorf("%s: flat says %v, jsonschema %v", in, got, want)
		}
	}
}
