package mcp

import (
	"testing"

	"github.com/mcpwire/mcpwire/codec"
)

// TestCompleteResult_members checks which members completeResult adds to
// a result, and where, for each combination a result may already have.
func TestCompleteResult_members(t *testing.T) {
	info := []byte(`{"name":"s","version":"1"}`)
	const si = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}`
	for _, tc := range []struct {
		in        string
		cacheable bool
		want      string
	}{
		{`{}`, false, `{"resultType":"complete",` + si + `}`},
		{`{}`, true, `{"resultType":"complete","ttlMs":0,"cacheScope":"private",` + si + `}`},
		{`{"ttlMs":9}`, true, `{"resultType":"complete","cacheScope":"private",` + si + `,"ttlMs":9}`},
		{`{"cacheScope":"public"}`, true, `{"resultType":"complete","ttlMs":0,` + si + `,"cacheScope":"public"}`},
		{`{"ttlMs":9,"cacheScope":"public","resultType":"complete"}`, true, `{` + si + `,"ttlMs":9,"cacheScope":"public","resultType":"complete"}`},
		{`{"a":1,"_meta":{"k":2}}`, false, `{"resultType":"complete","a":1,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"},"k":2}}`},
		{`{"_meta":null}`, false, `{"resultType":"complete","_meta":null}`},
		{`  {"a":1}`, false, `  {"resultType":"complete",` + si + `,"a":1}`},
		{`{"resultType":"input_required"}`, true, `{` + si + `,"resultType":"input_required"}`},
		{`"text"`, true, `"text"`},
		{`null`, true, `null`},
	} {
		prefix := []byte("head:")
		b := append(prefix, tc.in...)
		var hint *cacheHint
		if tc.cacheable {
			hint = noHint
		}
		got := string(completeResult(b, len(prefix), info, hint))
		if got != "head:"+tc.want {
			t.Errorf("%s (cacheable %t):\n got %s\nwant head:%s", tc.in, tc.cacheable, got, tc.want)
		}
	}
}

// A tools/call result takes statelessResult's short cut (the head
// inserted without a walk) and comes out as completeResult makes it; one
// with a _meta of its own takes the walk.
func TestStatelessResult_toolResultAsCompleteResultMakesIt(t *testing.T) {
	info := []byte(`{"name":"s","version":"1"}`)
	for _, res := range []*CallToolResult{
		{Content: []Content{&TextContent{Text: "hello"}}},
		{Content: []Content{}},
		{Content: []Content{&TextContent{Text: `a "b"`}}, StructuredContent: map[string]int{"n": 1}, IsError: true},
		{Content: []Content{&TextContent{Text: "m"}}, Meta: Meta{"k": "v"}},
	} {
		plain, err := codec.AppendValue([]byte("head:"), res)
		if err != nil {
			t.Fatal(err)
		}
		want := completeResult(plain, len("head:"), info, nil)
		for _, v := range []any{res, res.encodeCommon()} {
			got, err := (&statelessResult{v: v, info: info, head: statelessHead(info)}).AppendJSON([]byte("head:"))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("%T:\ngot  %s\nwant %s", v, got, want)
			}
		}
	}
}
