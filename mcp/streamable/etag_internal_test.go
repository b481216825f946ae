package streamable

import (
	"net/http"
	"testing"
)

// TestCacheHeaders_answers checks which answers cacheHeaders marks, with
// which Cache-Control, and that the ETag covers the result alone.
func TestCacheHeaders_answers(t *testing.T) {
	const res = `{"resultType":"complete","ttlMs":61999,"cacheScope":"public","tools":[]}`
	for _, tc := range []struct{ name, msg, control string }{
		{"public", `{"jsonrpc":"2.0","id":1,"result":` + res + `}`, "public, max-age=61"},
		{"string id", `{"jsonrpc":"2.0","id":"a,\"b","result":` + res + `}`, "public, max-age=61"},
		{"private", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private"}}`, "private, max-age=0"},
		{"largest ttl", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":999999999999999,"cacheScope":"private"}}`, "private, max-age=999999999999"},
		{"ttl too long", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":9999999999999999,"cacheScope":"private"}}`, ""},
		{"negative ttl", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":-1,"cacheScope":"private"}}`, ""},
		{"fractional ttl", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":1.5,"cacheScope":"private"}}`, ""},
		{"other scope", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":1,"cacheScope":"shared"}}`, ""},
		{"no hint", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}`, ""},
		{"input required", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","ttlMs":1,"cacheScope":"private"}}`, ""},
		{"error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}`, ""},
		{"batch", `[{"jsonrpc":"2.0","id":1,"result":` + res + `}]`, ""},
		{"bad id", `{"jsonrpc":"2.0","id":}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hd := http.Header{}
			nm := cacheHeaders(hd, []byte(tc.msg), []string{"*"})
			if got := hd.Get("Cache-Control"); got != tc.control || nm != (tc.control != "") || (hd.Get("ETag") == "") != (tc.control == "") {
				t.Fatalf("Cache-Control %q, ETag %q, 304 %t; want Cache-Control %q", got, hd.Get("ETag"), nm, tc.control)
			}
		})
	}
	a, b := http.Header{}, http.Header{}
	cacheHeaders(a, []byte(`{"jsonrpc":"2.0","id":1,"result":`+res+`}`), nil)
	cacheHeaders(b, []byte(`{"jsonrpc":"2.0","id":"other","result":`+res+`}`), nil)
	if a.Get("ETag") != b.Get("ETag") || a.Get("ETag") != entityTag([]byte(res)) {
		t.Fatalf("ETags %s and %s, want both %s", a.Get("ETag"), b.Get("ETag"), entityTag([]byte(res)))
	}
}

// TestMatchesTag checks If-None-Match's forms: one tag, a list, W/, *.
func TestMatchesTag(t *testing.T) {
	const tag = `"00000000000000ab"`
	for _, tc := range []struct {
		lines []string
		want  bool
	}{
		{nil, false},
		{[]string{tag}, true},
		{[]string{`W/` + tag}, true},
		{[]string{`"x",` + tag}, true},
		{[]string{`"x"`, ` ` + tag + ` `}, true},
		{[]string{"*"}, true},
		{[]string{`"00000000000000AB"`}, false},
		{[]string{`00000000000000ab`}, false},
		{[]string{`"x", "y"`}, false},
	} {
		if got := matchesTag(tc.lines, tag); got != tc.want {
			t.Errorf("%q: %t, want %t", tc.lines, got, tc.want)
		}
	}
}

// BenchmarkCacheHeaders is what writeAnswer adds to each JSON answer: for
// an answer that is not cacheable (a tools/call result), and for a
// cacheable list of each size (its ETag hashed).
func BenchmarkCacheHeaders(b *testing.B) {
	call := []byte(`{"jsonrpc":"2.0","id":12345,"result":{"content":[{"type":"text","text":"hello"}]}}`)
	b.Run("answer=toolsCall", func(b *testing.B) { benchCacheHeaders(b, call) })
	for _, size := range []struct {
		name  string
		tools int
	}{{"small", 1}, {"medium", 64}, {"large", 4096}} {
		msg := []byte(`{"jsonrpc":"2.0","id":12345,"result":{"resultType":"complete","ttlMs":60000,"cacheScope":"public","tools":[`)
		for i := range size.tools {
			if i > 0 {
				msg = append(msg, ',')
			}
			msg = append(msg, `{"name":"tool","description":"a tool of the benchmark","inputSchema":{"type":"object"}}`...)
		}
		msg = append(msg, "]}}"...)
		b.Run("answer=toolsList/size="+size.name, func(b *testing.B) { benchCacheHeaders(b, msg) })
	}
}

func benchCacheHeaders(b *testing.B, msg []byte) {
	hd := http.Header{}
	b.ReportAllocs()
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if cacheHeaders(hd, msg, nil) {
			b.Fatal("304")
		}
	}
}
