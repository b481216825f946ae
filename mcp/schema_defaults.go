package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpwire/mcpwire/codec"
)

// Defaults of tool arguments: a property of the input schema with a
// "default" (given in a verbatim schema, or by a `default:"…"` tag on a
// field of the Go type the schema is inferred from) that the arguments
// lack is set to it before the arguments are validated and the handler
// runs, in objects the arguments hold as well as at the top. Defaults are
// validated against their schemas when the tool is added. A required
// property is never defaulted: it must come from the client.

// defaultTag is the struct tag that gives a field's default: JSON (30,
// true, "x", [1,2]), or for a string field the text itself (active).
const defaultTag = "default"

// applyDefaultTags sets, in s (the schema inferred from t), the default
// of each field of the structs t holds that has a default tag, and makes
// the property optional.
func applyDefaultTags(t reflect.Type, s *jsonschema.Schema) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if s.Properties == nil {
			return nil
		}
		for _, f := range jsonFields(t) {
			ps := s.Properties[f.name]
			if err := applyDefaultTags(f.Type, ps); err != nil {
				return err
			}
			tag, ok := f.Tag.Lookup(defaultTag)
			if !ok || ps == nil {
				continue
			}
			raw, err := defaultJSON(f.Type, tag)
			if err != nil {
				return fmt.Errorf("field %s: %w", f.Name, err)
			}
			ps.Default = raw
			s.Required = slices.DeleteFunc(s.Required, func(n string) bool { return n == f.name })
		}
		if len(s.Required) == 0 {
			s.Required = nil
		}
	case reflect.Slice, reflect.Array:
		return applyDefaultTags(t.Elem(), s.Items)
	case reflect.Map:
		return applyDefaultTags(t.Elem(), s.AdditionalProperties)
	}
	return nil
}

// defaultJSON reads a default tag of a field of type t.
func defaultJSON(t reflect.Type, tag string) (json.RawMessage, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if json.Valid([]byte(tag)) && (t.Kind() != reflect.String || (tag != "" && tag[0] == '"')) {
		return json.RawMessage(tag), nil
	}
	if t.Kind() == reflect.String {
		return json.Marshal(tag)
	}
	return nil, fmt.Errorf("default tag %q is not JSON", tag)
}

// hasDefaults reports whether s, or a schema of its properties, has a
// default.
func hasDefaults(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	if s.Default != nil {
		return true
	}
	for _, p := range s.Properties {
		if hasDefaults(p) {
			return true
		}
	}
	return false
}

// withDefaults validates the JSON object args and returns it with the
// schema's defaults applied (args itself when the schema has none). The
// object given the handler is encoded anew, members sorted, from a
// decoding that keeps numbers as they were written (an integer past 2^53
// survives); validation sees the defaults too.
func (c *compiledSchema) withDefaults(args []byte) ([]byte, error) {
	if !c.defaults && c.fastValid(args) {
		return args, nil
	}
	var v any
	if err := codec.Unmarshal(args, &v); err != nil {
		return nil, err
	}
	if !c.defaults {
		return args, c.resolved.Validate(v)
	}
	if err := c.resolved.ApplyDefaults(&v); err != nil {
		return nil, err
	}
	if err := c.resolved.Validate(v); err != nil {
		return nil, err
	}
	// args is valid JSON (the scanner read it): encoding/json decodes it
	// safely, with json.Number for numbers, which the validator would
	// take for strings.
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var exact any
	if err := d.Decode(&exact); err != nil {
		return nil, err
	}
	if err := c.resolved.ApplyDefaults(&exact); err != nil {
		return nil, err
	}
	return json.Marshal(exact)
}

// formDefaults returns a copy of content, the values of an accepted
// elicitation form, with the defaults of the form's schema (any value
// that encodes to one) set where it lacks an optional property; content
// itself when the schema has no defaults. A nil content is a form
// accepted with nothing entered.
func formDefaults(schema any, content map[string]any) (map[string]any, error) {
	cs, err := schemaOf(schema)
	if err != nil || !cs.defaults {
		return content, err
	}
	out := maps.Clone(content)
	if out == nil {
		out = map[string]any{}
	}
	if err := cs.resolved.ApplyDefaults(&out); err != nil {
		return content, err
	}
	return out, nil
}
