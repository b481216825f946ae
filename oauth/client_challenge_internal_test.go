package oauth

import (
	"net/http"
	"testing"
)

// The Bearer challenge is found among others, its parameters read as
// tokens or quoted strings (escapes undone), names matched without case.
func TestParseChallenge(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want challenge
	}{
		{[]string{`Bearer resource_metadata="https://r.example/.well-known/oauth-protected-resource/mcp", scope="a b"`},
			challenge{scope: "a b", resourceMetadata: "https://r.example/.well-known/oauth-protected-resource/mcp"}},
		{[]string{`Bearer error="insufficient_scope", scope="mcp write", error_description="needs \"write\""`},
			challenge{err: "insufficient_scope", scope: "mcp write"}},
		{[]string{`Basic realm="x", bearer Error=invalid_token, Scope=mcp`}, challenge{err: "invalid_token", scope: "mcp"}},
		{[]string{`Basic realm="x"`, `Bearer scope="s"`}, challenge{scope: "s"}},
		{[]string{`Bearer realm="r", scope="s", DPoP algs="ES256", scope="other"`}, challenge{scope: "s"}},
		{[]string{`Negotiate abc==, Bearer scope=s`}, challenge{scope: "s"}},
		{[]string{`DPoP error="use_dpop_nonce", resource_metadata="m"`}, challenge{err: "use_dpop_nonce", resourceMetadata: "m"}},
		{[]string{`DPoP error="use_dpop_nonce"`, `Bearer scope="s"`}, challenge{scope: "s"}},
		{[]string{`Basic realm="x"`}, challenge{}},
		{nil, challenge{}},
	} {
		h := http.Header{}
		for _, v := range tc.in {
			h.Add("WWW-Authenticate", v)
		}
		if got := parseChallenge(h); got != tc.want {
			t.Errorf("%q: got %+v, want %+v", tc.in, got, tc.want)
		}
	}
}
