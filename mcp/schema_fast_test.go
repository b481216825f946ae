package mcp

import (
	"reflect"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
)

// fastSchemas are schemas the fast path compiles: verbatim ones, and ones
// inferred from Go types (fastTypes).
var fastSchemas = []string{
	`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"],"additionalProperties":false}`,
	`{"type":"object"}`,
	`{"type":"object","properties":{"a":{"type":"integer","minimum":0,"maximum":10},"b":{"type":"number","exclusiveMinimum":-1.5,"exclusiveMaximum":2}}}`,
	`{"type":"object","properties":{"s":{"type":"string","minLength":2,"maxLength":4},"e":{"type":"string","enum":["x","y","\u00e9"]}},"required":["e"]}`,
	`{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3},"any":{},"t":true,"n":{"type":["null","boolean"]}}}`,
	`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"],"additionalProperties":false}},"additionalProperties":{"type":"integer"}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"array","items":{"type":["string","integer"]}}},"title":"t","description":"d"}`,
	`{"type":["object","null"],"properties":{"f":false}}`,
}

// slowSchemas are schemas the fast path leaves to the validator.
var slowSchemas = []string{
	`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`,
	`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`,
	`{"type":"object","properties":{"a":{"type":"string","pattern":"^a"}}}`,
	`{"type":"object","properties":{"a":{"enum":[1,"x"]}}}`,
	`{"type":"object","patternProperties":{"^x":{"type":"string"}}}`,
	`{"type":"object","required":["ghost"]}`,
	`{"type":"object","properties":{"a":{"type":"number","multipleOf":2}}}`,
}

// fastInstances are argument objects judged against every schema.
var fastInstances = []string{
	`{}`,
	`{"message":"hello"}`,
	`{"message":"hello","extra":1}`,
	`{"message":5}`,
	`{"message":null}`,
	`{"message":"a\nb"}`,
	`{"m\u0065ssage":"hello"}`,
	`{"message":"x","message":"y"}`,
	`{"message":1,"message":"y"}`,
	`{"a":3,"b":0.5}`,
	`{"a":3.0,"b":2}`,
	`{"a":-1}`,
	`{"a":11}`,
	`{"a":1.5}`,
	`{"a":1e400}`,
	`{"a":1e-400}`,
	`{"b":-1.5}`,
	`{"a":0.99999999999999999999}`,
	`{"a":12345678901234567890123}`,
	`{"s":"ab","e":"x"}`,
	`{"s":"a","e":"x"}`,
	`{"s":"abcde","e":"y"}`,
	`{"s":"ééé","e":"é"}`,
	`{"s":"\u00e9\u00e9","e":"\u00e9"}`,
	`{"e":"z"}`,
	`{"e":null}`,
	`{"l":["a"],"any":{"x":[1,{"y":null}]},"t":[],"n":true}`,
	`{"l":[],"n":null}`,
	`{"l":["a","b","c","d"]}`,
	`{"l":[1]}`,
	`{"any":{"x":[1e999]}}`,
	`{"n":"no"}`,
	`{"o":{"x":1},"k":2}`,
	`{"o":{"x":1,"y":2}}`,
	`{"o":{}}`,
	`{"k":2.5}`,
	`{"a":["x",1,2.5]}`,
	`{"a":["x",1,true]}`,
	`{"f":1}`,
	` { "message" : "spaced" } `,
	`{"a":[[[[[[[[[[1]]]]]]]]]],"b":{"c":{"d":{}}}}`,
}

// compileForTest compiles a schema as AddTool would.
func compileForTest(t testing.TB, raw string) *compiledSchema {
	t.Helper()
	c, err := compileSchema([]byte(raw))
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return c
}

// slowCheck is the reference: the arguments decoded by sonic and judged by
// the jsonschema validator.
func slowCheck(c *compiledSchema, data []byte) error {
	var v any
	if err := codec.Unmarshal(data, &v); err != nil {
		return err
	}
	return c.resolved.Validate(v)
}

// agree fails unless the fast verdict on data matches the validator's.
func agree(t testing.TB, c *compiledSchema, data []byte) fastVerdict {
	t.Helper()
	got := c.fast.check(data)
	err := slowCheck(c, data)
	switch {
	case got == fastValid && err != nil:
		t.Errorf("schema %s, value %s: fast path says valid, the validator: %v", c.raw, data, err)
	case got == fastInvalid && err == nil:
		t.Errorf("schema %s, value %s: fast path says invalid, the validator accepts it", c.raw, data)
	}
	return got
}

func TestFastSchema_agreesWithValidator(t *testing.T) {
	judged := map[fastVerdict]int{}
	for _, raw := range fastSchemas {
		c := compileForTest(t, raw)
		if c.fast == nil {
			t.Errorf("%s: not compiled for the fast path", raw)
			continue
		}
		for _, in := range fastInstances {
			judged[agree(t, c, []byte(in))]++
		}
	}
	if judged[fastValid] == 0 || judged[fastInvalid] == 0 {
		t.Errorf("verdicts %v: the table must exercise both", judged)
	}
	t.Logf("verdicts: %d valid, %d invalid, %d unknown", judged[fastValid], judged[fastInvalid], judged[fastUnknown])
}

func TestFastSchema_leavesOthersToValidator(t *testing.T) {
	for _, raw := range slowSchemas {
		if c := compileForTest(t, raw); c.fast != nil {
			t.Errorf("%s: compiled for the fast path, which does not do it", raw)
		}
	}
}

// The fast path answers the common calls itself.
func TestFastSchema_verdicts(t *testing.T) {
	echo := compileForTest(t, fastSchemas[0])
	for in, want := range map[string]fastVerdict{
		`{"message":"hello"}`:         fastValid,
		`{"message":"a\"b"}`:          fastValid,
		`{}`:                          fastInvalid,
		`{"message":5}`:               fastInvalid,
		`{"message":"x","other":"y"}`: fastInvalid,
		`{"mess\u0061ge":"x"}`:        fastUnknown,
	} {
		if got := echo.fast.check([]byte(in)); got != want {
			t.Errorf("%s: verdict %d, want %d", in, got, want)
		}
	}
}

// Schemas inferred from Go types compile for the fast path, and agree.
func TestFastSchema_inferred(t *testing.T) {
	type inner struct {
		X float64 `json:"x"`
	}
	for _, v := range []any{
		struct {
			Message string `json:"message"`
		}{},
		struct {
			Name  string            `json:"name"`
			Times int               `json:"times,omitempty"`
			Small int8              `json:"small,omitempty"`
			U     uint              `json:"u,omitempty"`
			Flag  *bool             `json:"flag"`
			Tags  []string          `json:"tags,omitempty"`
			In    *inner            `json:"in,omitempty"`
			M     map[string]int    `json:"m,omitempty"`
			Any   any               `json:"any,omitempty"`
			Raw   map[string]string `json:"raw,omitempty"`
		}{},
	} {
		c, err := schemaFor(reflect.TypeOf(v))
		if err != nil {
			t.Fatal(err)
		}
		if c.fast == nil {
			t.Errorf("%s: not compiled for the fast path", c.raw)
			continue
		}
		for _, in := range append(fastInstances,
			`{"name":"n","flag":null}`, `{"name":"n","flag":true,"small":-128,"u":0}`,
			`{"name":"n","small":200}`, `{"name":"n","u":-1}`, `{"name":"n","in":{"x":1}}`,
			`{"name":"n","in":{"x":"1"}}`, `{"name":"n","m":{"a":1,"b":2.5}}`, `{"name":"n","tags":null}`) {
			agree(t, c, []byte(in))
		}
	}
}

// FuzzFastSchema holds the fast path to the validator's verdicts on any
// valid JSON object, against each schema of the tables.
func FuzzFastSchema(f *testing.F) {
	for i := range fastSchemas {
		for _, in := range fastInstances {
			f.Add(uint8(i), in)
		}
	}
	compiled := make([]*compiledSchema, len(fastSchemas))
	for i, raw := range fastSchemas {
		compiled[i] = compileForTest(f, raw)
	}
	sc := codec.NewScanner(nil)
	f.Fuzz(func(t *testing.T, which uint8, in string) {
		data := []byte(in)
		if !sc.Valid(data) || codec.KindOf(data) != codec.ValueObject {
			return // arguments are a valid object by now
		}
		agree(t, compiled[int(which)%len(compiled)], data)
	})
}

func TestParseNumber(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0", 0, true}, {"-0", 0, true}, {"7", 7, true}, {"-12", -12, true},
		{"999999999999999", 999999999999999, true},
		{"12345678901234567890", 12345678901234567890, true},
		{"1.5", 1.5, true}, {"-2e3", -2000, true}, {"1e400", 0, false},
	} {
		got, ok := parseNumber([]byte(c.in))
		if ok != c.ok || ok && got != c.want {
			t.Errorf("parseNumber(%s) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	if n := testing.AllocsPerRun(100, func() { parseNumber([]byte("12345")) }); n != 0 {
		t.Errorf("parseNumber of an integer allocates %v times", n)
	}
}
