package streamable

import (
	"net/http"
	"net/textproto"
	"reflect"
	"testing"

	"github.com/valyala/fasthttp"
)

// TestFieldOf_isGet checks that fieldOf finds what http.Header.Get
// finds for the header names it is given, which are canonical: set in any
// case, sent twice, or absent.
func TestFieldOf_isGet(t *testing.T) {
	for _, key := range []string{"Content-Type", "Accept", headerVersion, headerSession} {
		if c := textproto.CanonicalMIMEHeaderKey(key); c != key {
			t.Fatalf("%q is not canonical (%q): fieldOf would miss what Get finds", key, c)
		}
		for _, hd := range []http.Header{{}, {key: {"a", "b"}}, {key: {}}} {
			if got, want := fieldOf(hd, key), hd.Get(key); got != want {
				t.Errorf("%s in %v: fieldOf %q, Get %q", key, hd, got, want)
			}
		}
		var hd http.Header = http.Header{}
		hd.Set(key, "v") // canonicalised by Set
		if got := fieldOf(hd, key); got != "v" {
			t.Errorf("%s: fieldOf %q, want v", key, got)
		}
	}
}

// TestFastExchange_headerLines checks that the header ServeFastHTTP's
// request carries has each line's value under its name, in order, lines
// of one name together, and nothing of the previous request's.
func TestFastExchange_headerLines(t *testing.T) {
	var x fastExchange
	x.hdr = http.Header{}
	for _, tc := range []struct {
		lines [][2]string
		want  http.Header
	}{
		{[][2]string{{"Accept", "a"}, {"Mcp-Method", "m"}, {"Accept", "b"}, {"X-One", "1"}, {"Accept", "c"}},
			http.Header{"Accept": {"a", "b", "c"}, "Mcp-Method": {"m"}, "X-One": {"1"}}},
		{[][2]string{{"Accept", "a"}, {"X-Two", "2"}},
			http.Header{"Accept": {"a"}, "X-Two": {"2"}}},
		{[][2]string{{"X-Two", "2"}, {"X-Two", "3"}, {"Accept", "a"}},
			http.Header{"X-Two": {"2", "3"}, "Accept": {"a"}}},
	} {
		var rc fasthttp.RequestCtx
		rc.Request.Header.SetHost("localhost")
		for _, kv := range tc.lines {
			rc.Request.Header.Add(kv[0], kv[1])
		}
		x.fillHeader(&rc)
		if !reflect.DeepEqual(x.hdr, tc.want) {
			t.Errorf("%v: header %v, want %v", tc.lines, x.hdr, tc.want)
		}
	}
}
