package mcp

import (
	"bytes"
	"math"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpwire/mcpwire/codec"
)

// A fast path for validating tool arguments: the schemas tools mostly have
// (objects of strings, numbers, booleans and arrays, required fields,
// additionalProperties, enums of strings, bounds) are compiled into a
// fastSchema that judges the raw JSON in one walk, with nothing decoded and
// no recursion deeper than the schema's own nesting. The jsonschema
// validator decodes the arguments into maps and recurses through reflection
// on deep stacks; it stays the reference.
//
// The fast path only ever answers "valid" when the jsonschema validator
// would accept the same bytes decoded by sonic, and "invalid" when it would
// refuse them. Anything else (a keyword it does not know, an escaped name,
// a number sonic would refuse) is fastUnknown. Callers ask the jsonschema
// validator whenever the answer is not fastValid, so error messages are
// always its own. schema_fast_test.go holds the two to the same verdicts.

// fastVerdict is what a fastSchema says of a value.
type fastVerdict uint8

const (
	fastUnknown fastVerdict = iota // ask the jsonschema validator
	fastValid
	fastInvalid
)

// typeSet is a set of JSON Schema types, one bit each.
type typeSet uint8

const (
	typeNull typeSet = 1 << iota
	typeBoolean
	typeObject
	typeArray
	typeNumber
	typeInteger
	typeString
)

var typeBits = map[string]typeSet{
	"null": typeNull, "boolean": typeBoolean, "object": typeObject, "array": typeArray,
	"number": typeNumber, "integer": typeInteger, "string": typeString,
}

// maxFastProps bounds the properties of one object schema: required ones
// are tracked in a uint64.
const maxFastProps = 64

// maxFastDepth bounds the nesting of a value the fast path walks without a
// schema (sonic refuses very deep values; the scanner's default limit is
// 512).
const maxFastDepth = 512

// fastSchema is one compiled (sub)schema.
type fastSchema struct {
	never bool    // the false schema: nothing is valid
	types typeSet // 0: any type

	enum []string // non-nil: the value is one of these strings

	min, max, xmin, xmax *float64 // numbers
	minLen, maxLen       int      // strings, in code points; -1: none
	minItems, maxItems   int      // arrays; -1: none
	items                *fastSchema

	props    []fastProp
	required uint64      // bit i: props[i] is required
	extra    *fastSchema // additionalProperties; nil: anything
	noExtra  bool        // additionalProperties is false
}

type fastProp struct {
	name string
	s    *fastSchema
}

// compileFast compiles the root of a schema, or returns nil when it uses
// something the fast path does not do.
func compileFast(s *jsonschema.Schema) *fastSchema {
	switch s.Schema {
	case "", "https://json-schema.org/draft/2020-12/schema",
		"http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#":
	default:
		return nil
	}
	rest := *s
	rest.Schema = ""
	return compileFastSub(&rest)
}

// compileFastSub compiles a schema below the root.
func compileFastSub(s *jsonschema.Schema) *fastSchema {
	if isFalseSchema(s) {
		return &fastSchema{never: true}
	}
	// What is left once the keywords handled here (and those that only
	// annotate) are cleared must be nothing at all.
	rest := *s
	rest.Title, rest.Description, rest.Default, rest.Deprecated = "", "", nil, false
	rest.ReadOnly, rest.WriteOnly, rest.Examples, rest.Comment = false, false, nil, ""
	rest.Format, rest.ContentEncoding, rest.ContentMediaType = "", "", ""
	rest.Extra, rest.PropertyOrder = nil, nil
	rest.Type, rest.Types, rest.Enum = "", nil, nil
	rest.Minimum, rest.Maximum, rest.ExclusiveMinimum, rest.ExclusiveMaximum = nil, nil, nil, nil
	rest.MinLength, rest.MaxLength = nil, nil
	rest.Items, rest.MinItems, rest.MaxItems = nil, nil, nil
	rest.Properties, rest.Required, rest.AdditionalProperties = nil, nil, nil
	if !reflect.ValueOf(rest).IsZero() {
		return nil
	}
	f := &fastSchema{
		min: s.Minimum, max: s.Maximum, xmin: s.ExclusiveMinimum, xmax: s.ExclusiveMaximum,
		minLen: intOr(s.MinLength), maxLen: intOr(s.MaxLength),
		minItems: intOr(s.MinItems), maxItems: intOr(s.MaxItems),
	}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	for _, t := range types {
		b, ok := typeBits[t]
		if !ok {
			return nil
		}
		f.types |= b
	}
	if s.Enum != nil {
		f.enum = []string{}
		for _, e := range s.Enum {
			str, ok := e.(string)
			if !ok {
				return nil
			}
			f.enum = append(f.enum, str)
		}
	}
	if s.Items != nil {
		if f.items = compileFastSub(s.Items); f.items == nil {
			return nil
		}
	}
	if len(s.Properties) > maxFastProps {
		return nil
	}
	for name, ps := range s.Properties {
		c := compileFastSub(ps)
		if c == nil {
			return nil
		}
		f.props = append(f.props, fastProp{name, c})
	}
	for _, r := range s.Required {
		i := f.prop(r)
		if i < 0 {
			return nil // required but not a property: rare, left to the validator
		}
		f.required |= 1 << i
	}
	if ap := s.AdditionalProperties; ap != nil {
		if isFalseSchema(ap) {
			f.noExtra = true
		} else if f.extra = compileFastSub(ap); f.extra == nil {
			return nil
		}
	}
	return f
}

// isFalseSchema reports whether s is the schema false ({"not":{}}), as the
// jsonschema validator tells it.
func isFalseSchema(s *jsonschema.Schema) bool {
	if s.Not == nil || !reflect.ValueOf(*s.Not).IsZero() {
		return false
	}
	rest := *s
	rest.Not = nil
	return reflect.ValueOf(rest).IsZero()
}

func intOr(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

// prop returns the index of the property named name, or -1.
func (f *fastSchema) prop(name string) int {
	for i := range f.props {
		if f.props[i].name == name {
			return i
		}
	}
	return -1
}

// propBytes is prop for a name as raw bytes (no allocation).
func (f *fastSchema) propBytes(name []byte) int {
	for i := range f.props {
		if f.props[i].name == string(name) {
			return i
		}
	}
	return -1
}

// check judges the JSON value d (validated by the scanner). The first
// fault found decides: an invalid value is invalid whatever else it holds
// (the validator refuses it, or sonic cannot decode it: an error either
// way).
func (f *fastSchema) check(d []byte) fastVerdict {
	if f.never {
		return fastUnknown
	}
	switch codec.KindOf(d) {
	case codec.ValueNull:
		return f.judge(typeNull, f.enum == nil)
	case codec.ValueTrue, codec.ValueFalse:
		return f.judge(typeBoolean, f.enum == nil)
	case codec.ValueNumber:
		return f.checkNumber(d)
	case codec.ValueString:
		return f.checkString(d)
	case codec.ValueArray:
		return f.checkArray(d)
	case codec.ValueObject:
		return f.checkObject(d)
	}
	return fastUnknown
}

// allows reports whether a value of type t passes the type keyword
// ("number" takes integers too).
func (f *fastSchema) allows(t typeSet) bool {
	return f.types == 0 || f.types&t != 0 || t == typeInteger && f.types&typeNumber != 0
}

// judge is the verdict on a value of type t that passes the schema's
// other keywords when ok is true.
func (f *fastSchema) judge(t typeSet, ok bool) fastVerdict {
	if !f.allows(t) || !ok {
		return fastInvalid
	}
	return fastValid
}

func (f *fastSchema) checkNumber(d []byte) fastVerdict {
	n, ok := parseNumber(d)
	if !ok {
		return fastUnknown // out of range: sonic refuses it
	}
	t := typeNumber // as sonic decodes it: a float64
	if _, frac := math.Modf(n); frac == 0 {
		t = typeInteger
	}
	return f.judge(t, f.enum == nil &&
		(f.min == nil || n >= *f.min) && (f.max == nil || n <= *f.max) &&
		(f.xmin == nil || n > *f.xmin) && (f.xmax == nil || n < *f.xmax))
}

func (f *fastSchema) checkString(d []byte) fastVerdict {
	body := d[1 : len(d)-1]
	textMatters := f.enum != nil || f.minLen >= 0 || f.maxLen >= 0
	if !textMatters {
		return f.judge(typeString, true)
	}
	if bytes.IndexByte(body, '\\') >= 0 {
		return fastUnknown // let the validator judge the text unescaped
	}
	ok := f.enum == nil
	for _, e := range f.enum {
		if e == string(body) {
			ok = true
			break
		}
	}
	if f.minLen >= 0 || f.maxLen >= 0 {
		n := utf8.RuneCount(body)
		ok = ok && (f.minLen < 0 || n >= f.minLen) && (f.maxLen < 0 || n <= f.maxLen)
	}
	return f.judge(typeString, ok)
}

func (f *fastSchema) checkArray(d []byte) fastVerdict {
	if !f.allows(typeArray) || f.enum != nil {
		return fastInvalid
	}
	n := 0
	var it codec.Elements
	for it.Reset(d); it.Next(); n++ {
		if f.items == nil {
			continue
		}
		if v := f.items.check(it.Value()); v != fastValid {
			return v
		}
	}
	if it.Err() != nil {
		return fastUnknown
	}
	if f.minItems >= 0 && n < f.minItems || f.maxItems >= 0 && n > f.maxItems {
		return fastInvalid
	}
	if f.items == nil && !decodable(d) {
		return fastUnknown
	}
	return fastValid
}

func (f *fastSchema) checkObject(d []byte) fastVerdict {
	if !f.allows(typeObject) || f.enum != nil {
		return fastInvalid
	}
	var seen uint64
	var it codec.Members
	for it.Reset(d); it.Next(); {
		if it.KeyEscaped() {
			return fastUnknown // names are compared unescaped: let the validator
		}
		sub := f.extra
		if i := f.propBytes(it.Name(nil)); i >= 0 {
			seen |= 1 << i
			sub = f.props[i].s
		} else if f.noExtra {
			return fastInvalid
		}
		v := fastValid
		if sub != nil {
			v = sub.check(it.Value())
		} else if !decodable(it.Value()) {
			v = fastUnknown
		}
		if v == fastInvalid && repeatsNames(d) {
			return fastUnknown // sonic keeps the last member of a name
		}
		if v != fastValid {
			return v
		}
	}
	if it.Err() != nil {
		return fastUnknown
	}
	if seen&f.required != f.required {
		return fastInvalid
	}
	return fastValid
}

// repeatsNames reports whether a name comes twice in the object d, or d
// has too many members to tell cheaply. Only the failure path asks.
func repeatsNames(d []byte) bool {
	var names [16][]byte
	n := 0
	var it codec.Members
	for it.Reset(d); it.Next(); n++ {
		if n == len(names) {
			return true
		}
		names[n] = it.Key()
		for _, prev := range names[:n] {
			if bytes.Equal(prev, names[n]) {
				return true
			}
		}
	}
	return false
}

// decodable reports whether sonic decodes the JSON value d into an any:
// every number in it is finite, and it nests no deeper than maxFastDepth.
func decodable(d []byte) bool {
	depth := 0
	for i := 0; i < len(d); {
		switch c := d[i]; {
		case c == '"':
			j, err := codec.SkipValue(d, i)
			if err != nil {
				return false
			}
			i = j
		case c == '-' || c-'0' < 10:
			j, err := codec.SkipValue(d, i)
			if err != nil {
				return false
			}
			if _, ok := parseNumber(d[i:j]); !ok {
				return false
			}
			i = j
		case c == '{' || c == '[':
			if depth++; depth > maxFastDepth {
				return false
			}
			i++
		case c == '}' || c == ']':
			depth--
			i++
		default:
			i++
		}
	}
	return true
}

// parseNumber returns the float64 sonic decodes the JSON number d to, and
// false when sonic would refuse it (out of range). Integers of up to 15
// digits, exact in a float64, are read without strconv (whose errors make
// the text escape: an allocation per number).
func parseNumber(d []byte) (float64, bool) {
	digits := d
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) > 0 && len(digits) <= 15 {
		n := 0
		for _, c := range digits {
			if c-'0' > 9 {
				return parseNumberSlow(d)
			}
			n = n*10 + int(c-'0')
		}
		if d[0] == '-' {
			return -float64(n), true
		}
		return float64(n), true
	}
	return parseNumberSlow(d)
}

func parseNumberSlow(d []byte) (float64, bool) {
	n, err := strconv.ParseFloat(string(d), 64)
	return n, err == nil
}
