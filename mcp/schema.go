package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpwire/mcpwire/codec"
)

// JSON Schemas of tools: inferred from Go types or given verbatim, served
// as encoded once, and compiled once for validation (draft 2020-12, the
// default dialect of MCP, or draft-07 when a verbatim schema says so).

// compiledSchema is a schema as served and as validated.
type compiledSchema struct {
	raw      json.RawMessage // served byte for byte
	resolved *jsonschema.Resolved
	fast     *fastSchema // nil: the schema is beyond the fast path (schema_fast.go)
	defaults bool        // a property has a default (see schema_defaults.go)
}

// schemaFor infers the schema of the Go type t, following its json tags:
// a field without omitempty or omitzero is required, unless it is a
// pointer; a struct admits no other properties. The schema must describe
// an object: t must be a struct or a map, or a pointer to one.
func schemaFor(t reflect.Type) (*compiledSchema, error) {
	if err := objectType(t); err != nil {
		return nil, err
	}
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{})
	if err != nil {
		return nil, err
	}
	relaxPointers(t, s)
	if err := applyDefaultTags(t, s); err != nil {
		return nil, err
	}
	// The value itself may not be null, even when t is a pointer.
	if s.Type == "" && len(s.Types) > 0 {
		s.Types = slices.DeleteFunc(s.Types, func(x string) bool { return x == "null" })
		if len(s.Types) == 1 {
			s.Type, s.Types = s.Types[0], nil
		}
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return compileSchema(raw)
}

// objectType reports, in words a newcomer can act on, why values of the Go
// type t are not JSON objects, or nil when they are.
func objectType(t reflect.Type) error {
	e := t
	for e.Kind() == reflect.Pointer {
		e = e.Elem()
	}
	if e.Kind() == reflect.Struct || e.Kind() == reflect.Map {
		return nil
	}
	return fmt.Errorf("the Go type %v is not a JSON object: use a struct (wrap the %v in one) or a map", t, t)
}

// schemaOf compiles a schema given by the user: raw JSON (served as given,
// compacted), a *jsonschema.Schema, or any value that encodes to a schema.
func schemaOf(v any) (*compiledSchema, error) {
	var raw []byte
	switch x := v.(type) {
	case json.RawMessage:
		raw = x
	case codec.Raw:
		raw = x
	case []byte:
		raw = x
	case string:
		raw = []byte(x)
	default:
		var err error
		if raw, err = json.Marshal(x); err != nil {
			return nil, err
		}
	}
	return compileSchema(raw)
}

// compileSchema compacts and resolves a schema, which must describe an
// object.
func compileSchema(raw []byte) (*compiledSchema, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(buf.Bytes(), &s); err != nil {
		return nil, err
	}
	if s.Type != "object" && !slices.Contains(s.Types, "object") {
		return nil, errors.New(`schema must have "type": "object"`)
	}
	rs, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, err
	}
	return &compiledSchema{raw: buf.Bytes(), resolved: rs, fast: compileFast(&s), defaults: hasDefaults(&s)}, nil
}

// validate checks the JSON value data (valid JSON, decoded with sonic).
func (c *compiledSchema) validate(data []byte) error {
	if c.fastValid(data) {
		return nil
	}
	var v any
	if err := codec.Unmarshal(data, &v); err != nil {
		return err
	}
	return c.resolved.Validate(v)
}

// fastValid reports whether the fast path finds data valid. When it does
// not, the jsonschema validator judges, and words the error.
func (c *compiledSchema) fastValid(data []byte) bool {
	return c.fast != nil && c.fast.check(data) == fastValid
}

// relaxPointers makes the pointer fields of the structs t holds optional
// in s: a nil pointer is how Go says "absent".
func relaxPointers(t reflect.Type, s *jsonschema.Schema) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s == nil {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if s.Properties == nil {
			return // a struct with a schema of its own (time.Time)
		}
		for _, f := range jsonFields(t) {
			relaxPointers(f.Type, s.Properties[f.name])
			if f.Type.Kind() == reflect.Pointer {
				s.Required = slices.DeleteFunc(s.Required, func(n string) bool { return n == f.name })
			}
		}
		if len(s.Required) == 0 {
			s.Required = nil
		}
	case reflect.Slice, reflect.Array:
		relaxPointers(t.Elem(), s.Items)
	case reflect.Map:
		relaxPointers(t.Elem(), s.AdditionalProperties)
	}
}

type jsonField struct {
	reflect.StructField
	name string
}

// jsonFields lists the fields encoding/json sees in the struct t, with
// their names.
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	for _, f := range reflect.VisibleFields(t) {
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				continue // its fields are promoted
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{f, name})
	}
	return out
}
