package codec

import (
	"errors"
	"reflect"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// exactOptions are encoding/json's rules (go-json-experiment/json's v1
// mode: numbers into any are float64, null leaves a value as it was, a
// name given twice keeps the last value…) but for member names, which are
// matched exactly, as sonic matches them with OptionCaseSensitive.
var exactOptions = json.JoinOptions(jsonv1.DefaultOptionsV1(), json.MatchCaseInsensitiveNames(false))

// explainOptions are exactOptions with errors that say where: decoding
// stops at the first error, which is a *json.SemanticError.
var explainOptions = json.JoinOptions(exactOptions, jsonv1.ReportErrorsWithLegacySemantics(false))

// ExplainExact decodes data into v under UnmarshalExact's rules, with
// go-json-experiment/json on every platform, and returns what went wrong
// and where: nil when data decodes; a *json.SemanticError whose
// JSONPointer (RFC 6901, relative to data) and ByteOffset locate the value
// at fault and whose GoType is the type it did not fit (Err, when set, is
// the cause: a number out of range, or the error of the type's own
// UnmarshalJSON); or a *jsontext.SyntacticError for data that is not JSON.
//
// It is the slow path that names the culprit after UnmarshalExact failed,
// not a decoder for the success path: it stops at the first error and may
// refuse a misused `json:",string"` option that UnmarshalExact ignores. v
// may be left partly decoded.
func ExplainExact(data []byte, v any) error {
	return json.Unmarshal(data, v, explainOptions)
}

// ExactTarget reports where UnmarshalExact puts the member name of an
// object decoded into the struct root points to: a pointer to that field
// (of root's struct, or of a struct an embedded pointer leads to, allocated
// when nil), or nil when the member is ignored (no field has that name, or
// several have it and none wins). It applies encoding/json's rules for
// struct fields — exported fields, `json` tag names, fields promoted from
// embedded structs, the shallowest field winning, a tagged one breaking a
// tie — with names matched exactly. It panics if root is not a non-nil
// pointer to a struct. Nothing is written to the field.
func ExactTarget(root any, name string) any {
	rv := reflect.ValueOf(root)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		panic("codec: ExactTarget needs a non-nil pointer to a struct")
	}
	var target any
	hook := json.UnmarshalFromFunc(func(dec *jsontext.Decoder, v any) error {
		if dec.StackDepth() == 0 {
			return errors.ErrUnsupported // the root: decoded as usual
		}
		target = v
		return dec.SkipValue()
	})
	obj := append(AppendString([]byte{'{'}, name), ":0}"...)
	_ = json.Unmarshal(obj, root, exactOptions, json.WithUnmarshalers(hook))
	return target
}
