package mcp_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

// ToolParamHeaders follows the x-mcp-header rules of 2026-07-28
// (streamable-http, "Schema Extension").
func TestToolParamHeaders(t *testing.T) {
	for _, tc := range []struct {
		schema string
		want   string // fmt of the headers; "error" for an invalid tool
	}{
		{`{"type":"object"}`, "[]"},
		{`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"q":{"type":"string"}}}`, "[{Region [region]}]"},
		{`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"integer","x-mcp-header":"B"}}},"c":{"type":"boolean","x-mcp-header":"C"}}}`,
			"[{B [a b]} {C [c]}]"},
		{`{"type":"object","properties":{"v":{"type":"string","x-mcp-header":""}}}`, "error"},
		{`{"type":"object","properties":{"v":{"type":"string","x-mcp-header":"My Region"}}}`, "error"},
		{`{"type":"object","properties":{"v":{"type":"string","x-mcp-header":"Region:1"}}}`, "error"},
		{`{"type":"object","properties":{"v":{"type":"string","x-mcp-header":"Région"}}}`, "error"},
		{`{"type":"object","properties":{"v":{"type":"string","x-mcp-header":"R\t1"}}}`, "error"},
		{`{"type":"object","properties":{"v":{"type":"number","x-mcp-header":"V"}}}`, "error"},
		{`{"type":"object","properties":{"v":{"type":"object","x-mcp-header":"V"}}}`, "error"},
		{`{"type":"object","properties":{"v":{"type":"array","items":{"type":"string"},"x-mcp-header":"V"}}}`, "error"},
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"F"},"b":{"type":"string","x-mcp-header":"f"}}}`, "error"},
		{`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}`, "error"},
		{`{"type":"object","properties":{"a":{"oneOf":[{"type":"string","x-mcp-header":"A"}]}}}`, "error"},
		{`{"type":"object","$defs":{"d":{"type":"string","x-mcp-header":"D"}}}`, "error"},
		{`{"type":"string","x-mcp-header":"Root"}`, "error"},
	} {
		h, err := mcp.ToolParamHeaders(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(tc.schema)})
		got := fmt.Sprint(h)
		if h == nil {
			got = "[]"
		}
		if err != nil {
			got = "error"
		}
		if got != tc.want {
			t.Errorf("%s: %s (%v), want %s", tc.schema, got, err, tc.want)
		}
	}
}
