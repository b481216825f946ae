package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/codec"
)

// ParamHeader is an x-mcp-header annotation of a tool's input schema
// (2026-07-28): over HTTP, the argument at Path (a chain of property
// names from the schema's root) is mirrored in the header
// Mcp-Param-{Name} of each tools/call of the tool.
type ParamHeader struct {
	Name string
	Path []string
}

// ToolParamHeaders returns the x-mcp-header annotations of t's input
// schema, sorted by name, or an error naming the rule of the
// specification they break: a name that is empty or not an HTTP token, a
// name given twice (in any case), a property that is not a string,
// integer or boolean, or an annotation anywhere but on a property
// reached from the root through properties alone.
func ToolParamHeaders(t *Tool) ([]ParamHeader, error) {
	var raw []byte
	switch s := t.InputSchema.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		raw = s
	default:
		b, err := codec.AppendValue(nil, s)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	if !strings.Contains(string(raw), `"x-mcp-header"`) {
		return nil, nil // the common case: nothing to walk
	}
	var schema any
	if err := codec.Unmarshal(raw, &schema); err != nil {
		return nil, err
	}
	var out []ParamHeader
	if err := walkParamHeaders(schema, nil, true, &out); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b ParamHeader) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(out); i++ {
		if strings.EqualFold(out[i-1].Name, out[i].Name) {
			return nil, fmt.Errorf("x-mcp-header %q is given twice", out[i].Name)
		}
	}
	return out, nil
}

// walkParamHeaders appends the annotations of schema v, at path, to out;
// reachable is whether v is reached from the root through properties
// alone.
func walkParamHeaders(v any, path []string, reachable bool, out *[]ParamHeader) error {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if err := walkParamHeaders(e, path, false, out); err != nil {
				return err
			}
		}
	case map[string]any:
		if h, ok := x["x-mcp-header"]; ok {
			if !reachable || len(path) == 0 {
				return errors.New("x-mcp-header is only allowed on a property reached through properties alone")
			}
			name, ok := h.(string)
			if !ok || !isToken(name) {
				return fmt.Errorf("x-mcp-header of %s must be a non-empty HTTP token", strings.Join(path, "."))
			}
			switch x["type"] {
			case "string", "integer", "boolean":
			default:
				return fmt.Errorf("x-mcp-header %q is on a property that is not a string, integer or boolean", name)
			}
			*out = append(*out, ParamHeader{Name: name, Path: slices.Clone(path)})
		}
		for k, e := range x {
			if props, ok := e.(map[string]any); ok && k == "properties" {
				for name, p := range props {
					if err := walkParamHeaders(p, append(path, name), reachable, out); err != nil {
						return err
					}
				}
				continue
			}
			if err := walkParamHeaders(e, path, false, out); err != nil {
				return err
			}
		}
	}
	return nil
}

// isToken reports whether s is an HTTP token (RFC 9110's 1*tchar).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
