package mcp

import "testing"

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
