package streamable

import (
	"net/http"
	"net/textproto"
	"testing"
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
