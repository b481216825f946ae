package oauth

import (
	"net/http"
	"strings"
)

// challenge is what a resource server's Bearer challenge (RFC 6750 §3,
// RFC 9728 §5.1) tells a client: the error, the scope the request needs
// and where the resource's metadata is.
type challenge struct {
	err              string // "invalid_token", "insufficient_scope"…
	scope            string
	resourceMetadata string
}

// parseChallenge reads the Bearer challenge among resp's
// WWW-Authenticate headers, else the DPoP one (RFC 9449 §7.1); the zero
// challenge if there is neither.
func parseChallenge(h http.Header) challenge {
	var c challenge
	for _, scheme := range []string{"Bearer", "DPoP"} {
		for _, v := range h.Values("WWW-Authenticate") {
			params, ok := schemeParams(v, scheme)
			if !ok {
				continue
			}
			c.err = params["error"]
			c.scope = params["scope"]
			c.resourceMetadata = params["resource_metadata"]
			return c
		}
	}
	return c
}

// schemeParams returns the auth-params of the challenge of scheme in a
// WWW-Authenticate value (RFC 9110 §11.6.1), which may hold several
// challenges: scheme names are matched case-insensitively, parameter
// names are lower-cased, values may be tokens or quoted strings.
func schemeParams(v, scheme string) (map[string]string, bool) {
	var params map[string]string
	in := false // inside scheme's challenge
	for s := strings.TrimSpace(v); s != ""; {
		name, rest := cutToken(s)
		rest = strings.TrimLeft(rest, " \t")
		if name == "" { // a stray separator
			s = strings.TrimLeft(s[1:], " \t")
			continue
		}
		if !strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "==") {
			// A scheme (or a token68 after one: skipped).
			if in {
				return params, true
			}
			in = strings.EqualFold(name, scheme)
			if in {
				params = map[string]string{}
			}
			s = rest
			continue
		}
		rest = strings.TrimLeft(rest[1:], " \t")
		var value string
		if strings.HasPrefix(rest, `"`) {
			value, rest = cutQuoted(rest)
		} else {
			value, rest = cutToken(rest)
		}
		if in {
			params[strings.ToLower(name)] = value
		}
		s = strings.TrimLeft(rest, " \t,")
	}
	return params, in
}

// cutToken splits s after its leading token characters.
func cutToken(s string) (token, rest string) {
	i := strings.IndexAny(s, " \t,=\"")
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i:]
}

// cutQuoted splits s, which begins with a quote, after its quoted string,
// returning the string unescaped.
func cutQuoted(s string) (value, rest string) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '"':
			return b.String(), s[i+1:]
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}
