package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
)

// callResults are tools/call results, common and not.
var callResults = []string{
	`{"content":[{"type":"text","text":"hello"}]}`,
	`{"content":[]}`,
	`{}`,
	`{"content":[{"type":"text","text":"a"},{"text":"b","type":"text"}],"isError":true}`,
	`{"content":[{"type":"text","text":"esc\u00e9\n\"\ud800"}],"isError":false}`,
	`{"content":[{"type":"text"}]}`,
	`{"content":[{"type":"text","text":"x","text":"y"}]}`,
	`{"content":[{"type":"image","type":"text","text":"t"}]}`,
	`{"content":[{"type":"text","text":"{}"}],"structuredContent":{"a":[1, 2],"b":{}}}`,
	` { "content" : [ { "type" : "text" , "text" : "spaced" } ] , "structuredContent" : { "x" : 1 } } `,
	`{"content":[{"type":"\u0074ext","text":"escaped type"}]}`,
	`{"content":[{"type":"text","text":"a","annotations":{"priority":1}}]}`,
	`{"content":[{"type":"text","text":"a","_meta":{"k":"v"}}]}`,
	`{"content":[{"type":"image","data":"AAEC","mimeType":"image/png"}]}`,
	`{"content":[{"type":"resource_link","uri":"file:///x","name":"x"}]}`,
	`{"content":null}`,
	`{"content":[{"type":"text","text":"a"}],"_meta":{"k":1}}`,
	`{"content":[{"type":"text","text":"a"}],"structuredContent":null}`,
	`{"content":[{"type":"text","text":"a"}],"other":1}`,
	`{"c\u006fntent":[{"type":"text","text":"a"}]}`,
	`{"content":[{"type":"text","text":"a"}],"content":[{"type":"text","text":"b"}],"isError":true,"isError":false}`,
	`{"content":[{"type":"text","text":""}]}`,
	`{"content":[{"type":"text","text":"héllo ✓"}]}`,
	`{"content":[{"type":"text","text":"caf\u00e9"}]}`,
	`{"content":[{"type":"text","text":"a\"b"}]}`,
	`{"content":[{"type":"text","text":"a"}],"isError":true}`,
	`{"content":[{"type":"text","text":"a"}]} `,
	`{"content":[{"type":"text","text":"a"}, {"type":"text","text":"b"}]}`,
}

// decodeBothWays decodes data through decodeCommon (when it takes it) and
// decodeSlow, and fails unless both give the same result.
func decodeBothWays(t testing.TB, data []byte) (common bool) {
	t.Helper()
	var fast, owned, slow CallToolResult
	common = fast.decodeCommon(data, false, nil)
	if owned.decodeCommon(bytes.Clone(data), true, nil) != common {
		t.Errorf("%s: decodeCommon takes it owned but not copied, or the reverse", data)
	}
	slowErr := slow.decodeSlow(data)
	if !common {
		return false
	}
	if slowErr != nil {
		t.Errorf("%s: decodeCommon took it, decodeSlow failed: %v", data, slowErr)
	} else if !reflect.DeepEqual(fast, slow) {
		t.Errorf("%s: decodeCommon gave %#v, decodeSlow %#v", data, fast, slow)
	} else if !reflect.DeepEqual(owned, slow) {
		t.Errorf("%s: decodeCommon of owned bytes gave %#v, decodeSlow %#v", data, owned, slow)
	}
	return true
}

func TestCallToolResult_decodeCommonAgrees(t *testing.T) {
	took := 0
	for _, in := range callResults {
		if decodeBothWays(t, []byte(in)) {
			took++
		}
	}
	if took < len(callResults)/3 {
		t.Errorf("decodeCommon took %d of %d results", took, len(callResults))
	}
}

func TestCallToolResult_UnmarshalJSON(t *testing.T) {
	var r CallToolResult
	if err := codec.UnmarshalExact([]byte(`{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"isError":true}`), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Content) != 2 || !r.IsError || r.Content[1].(*TextContent).Text != "b" {
		t.Errorf("got %#v", r)
	}
	if err := r.UnmarshalJSON([]byte(`{"content":[{"type":"nope"}]}`)); err == nil {
		t.Error("an unknown content type decoded without error")
	}
}

// FuzzCallToolResultDecode holds decodeCommon to decodeSlow on any valid
// JSON object.
func FuzzCallToolResultDecode(f *testing.F) {
	for _, in := range callResults {
		f.Add(in)
	}
	sc := codec.NewScanner(nil)
	f.Fuzz(func(t *testing.T, in string) {
		data := []byte(in)
		if !sc.Valid(data) || codec.KindOf(data) != codec.ValueObject {
			return // a result is a valid object by now
		}
		decodeBothWays(t, data)
	})
}

// callParams are tools/call params, common and not.
var callParams = []string{
	`{"name":"echo","arguments":{"message":"hello"}}`,
	`{"name":"echo"}`,
	`{"arguments":{"a":[1, 2]},"name":"x"}`,
	` { "name" : "spaced" , "arguments" : { "a" : 1 } } `,
	`{"name":"a","name":"b","arguments":{},"arguments":{"x":1}}`,
	`{}`,
	`{"name":"\u00e9"}`,
	`{"name":"echo","arguments":null}`,
	`{"name":"echo","arguments":[1]}`,
	`{"name":1}`,
	`{"name":"echo","_meta":{"progressToken":1}}`,
	`{"name":"echo","task":{"ttl":1000}}`,
	`{"name":"echo","other":true}`,
	`{"n\u0061me":"echo"}`,
	`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol/logLevel":"info","progressToken":2}}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol\u002fclientInfo":{}}}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol/clientInfo":{}},"_meta":{"k":1}}`,
	`{"name":"echo","_meta":{}}`,
	`{"name":"echo","arguments":{}}`,
	`{"name":"","arguments":{"a":{"b":[1,{"c":"}"}]},"d":"\u0041"}}`,
	`{"name":"\u0065cho","arguments":{"a":1}}`,
	`{"name":"echo","arguments":{"a":1},"x":2}`,
	`{"name":"echo","arguments":{"a":1},"arguments":{"a":2}}`,
	`{"name":"echo","arguments":{"a":1}} `,
	`{"name":"echo","arguments":[]}`,
	`{"name":"echo", "arguments":{}}`,
	`{"name":"héllo","arguments":{"m":"✓"}}`,
}

// decodeParamsBothWays decodes data through decodeCommon (when it takes
// it) and sonic (less the engine's keys of _meta, as prepare does), and
// fails unless both give the same params.
func decodeParamsBothWays(t testing.TB, data []byte) bool {
	t.Helper()
	var fast, slow CallToolParams
	var view, again requestMeta
	read := view.Read(data)
	if reread := again.Reread(data); reread != read || !reflect.DeepEqual(again, view) {
		t.Errorf("%s: Reread gave %v, %+v; Read %v, %+v", data, reread, again, read, view)
	}
	if !read || !fast.decodeCommon(&view) {
		return false
	}
	err := codec.UnmarshalExact(data, &slow)
	dropEngineMeta(&slow)
	if err != nil {
		t.Errorf("%s: decodeCommon took it, sonic failed: %v", data, err)
	} else if !reflect.DeepEqual(fast, slow) {
		t.Errorf("%s: decodeCommon gave %#v, sonic %#v", data, fast, slow)
	}
	return true
}

func TestCallToolParams_decodeCommonAgrees(t *testing.T) {
	took := 0
	for _, in := range callParams {
		if decodeParamsBothWays(t, []byte(in)) {
			took++
		}
	}
	if took < 5 {
		t.Errorf("decodeCommon took %d of %d params", took, len(callParams))
	}
}

// FuzzCallToolParamsDecode holds decodeCommon to sonic on any valid JSON
// object.
func FuzzCallToolParamsDecode(f *testing.F) {
	for _, in := range callParams {
		f.Add(in)
	}
	sc := codec.NewScanner(nil)
	f.Fuzz(func(t *testing.T, in string) {
		data := []byte(in)
		if !sc.Valid(data) || codec.KindOf(data) != codec.ValueObject {
			return // params are a valid object by now
		}
		decodeParamsBothWays(t, data)
	})
}

// encodeResults are results as runTool returns them, common and not.
var encodeResults = []*CallToolResult{
	{Content: []Content{}},
	{Content: []Content{&TextContent{Text: "hello"}}},
	{Content: []Content{&TextContent{Text: "a\n\"b\"\\ <>&\u2028\x01\xff é"}, &TextContent{Text: ""}}, IsError: true},
	{Content: []Content{&TextContent{Text: "x", Meta: Meta{"k": 1}}}},
	{Content: []Content{&TextContent{Text: "x", Annotations: &Annotations{LastModified: "2025-01-12T15:00:58Z"}}}},
	{Content: []Content{&ImageContent{Data: []byte{1}, MIMEType: "image/png"}}},
	{Content: []Content{&TextContent{Text: "{}"}}, StructuredContent: json.RawMessage(`{}`)},
	{Content: []Content{}, Meta: Meta{"k": "v"}},
}

// encodeBothWays fails unless encodeCommon gives, when it takes r, the
// bytes sonic gives.
func encodeBothWays(t testing.TB, r *CallToolResult) bool {
	t.Helper()
	c, ok := r.encodeCommon().(*commonResult)
	if !ok {
		return false
	}
	raw, err := c.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := codec.AppendValue(nil, r)
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != string(want) {
		t.Errorf("%#v: encodeCommon gave %s, sonic %s", r, raw, want)
	}
	return true
}

func TestCallToolResult_encodeCommonAgrees(t *testing.T) {
	took := 0
	for _, r := range encodeResults {
		if encodeBothWays(t, r) {
			took++
		}
	}
	if took != 3 {
		t.Errorf("encodeCommon took %d results, want 3", took)
	}
}

// FuzzCallToolResultEncode holds encodeCommon to sonic's bytes for any
// text blocks.
func FuzzCallToolResultEncode(f *testing.F) {
	f.Add("hello", "", false)
	f.Add("a\n\"b\"\\ <>&\u2028\x01\xff é", "\x00\u007f\ud7ff", true)
	f.Fuzz(func(t *testing.T, a, b string, isError bool) {
		encodeBothWays(t, &CallToolResult{Content: []Content{&TextContent{Text: a}, &TextContent{Text: b}}, IsError: isError})
	})
}
