package mcp

import (
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/codec"
)

// ParamHeader is a tool parameter a client mirrors into an HTTP header
// (2026-07-28: the x-mcp-header keyword of a property of the tool's input
// schema): the header is "Mcp-Param-" + Name, and its value is that of
// the argument at Path (the chain of property names from the arguments
// object down to it).
type ParamHeader struct {
	Name string
	Path []string
}

// xMCPHeader is the schema keyword that names a ParamHeader.
const xMCPHeader = "x-mcp-header"

// ToolParamHeaders returns the parameters of the named tool that clients
// mirror into headers, in the order of its input schema; nil for a tool
// without any, or none of that name. The slice is shared: do not modify
// it. Safe for concurrent use.
func (s *Server) ToolParamHeaders(name string) []ParamHeader {
	st, ok := s.tools.get(name)
	if !ok {
		return nil
	}
	return st.headers
}

// paramHeaders returns the ParamHeaders an input schema declares: an
// x-mcp-header on a property (of the top-level object, or nested under
// properties), whose value must be a non-empty header name token, unique
// without regard to case, on a property of a primitive type.
func paramHeaders(schema []byte) ([]ParamHeader, error) {
	var out []ParamHeader
	seen := map[string]bool{}
	var walk func(obj []byte, path []string) error
	walk = func(obj []byte, path []string) error {
		props, _ := codec.Member(obj, "properties")
		if codec.KindOf(props) != codec.ValueObject {
			return nil
		}
		var m codec.Members
		for m.Reset(props); m.Next(); {
			prop := m.Value()
			if codec.KindOf(prop) != codec.ValueObject {
				continue
			}
			p := append(path[:len(path):len(path)], string(m.Name(nil)))
			if raw, ok := codec.Member(prop, xMCPHeader); ok {
				var name string
				if codec.UnmarshalExact(raw, &name) != nil || !isToken(name) {
					return fmt.Errorf("%s of %q must be a header name (letters, digits and !#$%%&'*+-.^_`|~)", xMCPHeader, strings.Join(p, "."))
				}
				if seen[strings.ToLower(name)] {
					return fmt.Errorf("%s %q is given twice", xMCPHeader, name)
				}
				if t, ok := codec.Member(prop, "type"); ok && !primitiveType(t) {
					return fmt.Errorf("%s of %q: the property must be a string, number, integer or boolean", xMCPHeader, strings.Join(p, "."))
				}
				seen[strings.ToLower(name)] = true
				out = append(out, ParamHeader{Name: name, Path: p})
			}
			if err := walk(prop, p); err != nil {
				return err
			}
		}
		return m.Err()
	}
	if err := walk(schema, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// primitiveType reports whether a schema's type (a string, or an array
// of them) names only primitive types.
func primitiveType(raw []byte) bool {
	var one string
	if codec.UnmarshalExact(raw, &one) == nil {
		return one == "string" || one == "number" || one == "integer" || one == "boolean"
	}
	var many []string
	if codec.UnmarshalExact(raw, &many) != nil {
		return false
	}
	for _, t := range many {
		if t != "null" && !primitiveType([]byte(`"`+t+`"`)) {
			return false
		}
	}
	return true
}

// isToken reports whether s is an HTTP field name token (RFC 9110 §5.1).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}
