package streamable

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/httpjson"
)

// HTTP caching of cacheable results (MCP 2026-07-28). A JSON answer
// that is a single result a client may cache — of server/discover, a
// list or resources/read, with resultType "complete" and the cache hints
// ttlMs and cacheScope, which package mcp puts at the head of the result
// — goes out with:
//
//   - Cache-Control: "public" or "private" as cacheScope says, and
//     max-age, ttlMs in whole seconds (rounded down);
//   - ETag: a strong entity tag of the result: the 64-bit xxHash (XXH64,
//     seed 0) of the result's bytes as sent, in 16 hex digits, quoted.
//     It covers the result alone, not the JSON-RPC envelope, whose id
//     differs from request to request; the same result gets the same tag
//     on any instance of the server, another result another tag.
//
// A POST whose If-None-Match lists that tag (or is "*") is answered 304
// Not Modified with the same Cache-Control and ETag and no body: the
// client answers its request from the result it kept. If-None-Match is
// compared weakly (a W/ prefix is ignored), as RFC 9110 asks. (RFC 9110
// would have a conditional POST answered 412; MCP's requests are all
// POSTs, and a read or a list changes nothing, so it is answered as a
// conditional GET would be.) The handler runs either way: the tag is
// known only once the result is.
//
// An answer that becomes an event stream, an error, a batch and any
// other result carry neither header, and If-None-Match does not apply to
// them.

// cachedResultHead is what follows the id in an answer whose result is
// cacheable, up to the value of ttlMs.
var cachedResultHead = []byte(`,"result":{"resultType":"complete","ttlMs":`)

// resultAt is where the result begins after the id.
const resultAt = len(`,"result":`)

// Where each scope follows ttlMs's value.
var (
	publicAfterTTL  = []byte(`,"cacheScope":"public"`)
	privateAfterTTL = []byte(`,"cacheScope":"private"`)
)

// maxTTLDigits bounds the ttlMs read: more than a lifetime's
// milliseconds is no hint to keep.
const maxTTLDigits = 15

// cacheHeaders sets Cache-Control and ETag on hd when msg (an answer a
// session wrote, in codec's layout) is a cacheable result, and reports
// whether ifNoneMatch (the request's If-None-Match lines) matches its
// ETag: the answer is then 304 with no body. Anything else is left
// alone, at the cost of skipping the id and comparing a prefix.
func cacheHeaders(hd http.Header, msg []byte, ifNoneMatch []string) (notModified bool) {
	if !bytes.HasPrefix(msg, httpjson.ResponseHead) {
		return false
	}
	end, err := codec.SkipValue(msg, len(httpjson.ResponseHead)) // the id
	if err != nil || !bytes.HasPrefix(msg[end:], cachedResultHead) || msg[len(msg)-1] != '}' {
		return false
	}
	i := end + len(cachedResultHead)
	var ms int64
	j := i
	for ; j < len(msg) && j-i <= maxTTLDigits && msg[j] >= '0' && msg[j] <= '9'; j++ {
		ms = ms*10 + int64(msg[j]-'0')
	}
	var control string
	switch rest := msg[j:]; {
	case j == i || j-i > maxTTLDigits:
		return false
	case bytes.HasPrefix(rest, publicAfterTTL):
		control = "public, max-age="
	case bytes.HasPrefix(rest, privateAfterTTL):
		control = "private, max-age="
	default:
		return false
	}
	etag := entityTag(msg[end+resultAt : len(msg)-1])
	hd["Cache-Control"] = []string{control + strconv.FormatInt(ms/1000, 10)}
	hd["Etag"] = []string{etag}
	return matchesTag(ifNoneMatch, etag)
}

// entityTag returns the strong entity tag of result: its XXH64 in hex,
// quoted.
func entityTag(result []byte) string {
	var b [18]byte
	b[0], b[17] = '"', '"'
	h := xxhash.Sum64(result)
	const hex = "0123456789abcdef"
	for i := 16; i > 0; i-- {
		b[i] = hex[h&0xf]
		h >>= 4
	}
	return string(b[:])
}

// matchesTag reports whether If-None-Match lines list etag or are "*",
// comparing weakly (RFC 9110, 13.1.2).
func matchesTag(lines []string, etag string) bool {
	for _, line := range lines {
		for tag := range strings.SplitSeq(line, ",") {
			tag = strings.Trim(tag, " \t")
			if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
				return true
			}
		}
	}
	return false
}

// writeNotModified answers 304 with the headers cacheHeaders set, no
// Content-Type and no body.
func writeNotModified(w http.ResponseWriter) {
	delete(w.Header(), "Content-Type")
	w.WriteHeader(http.StatusNotModified)
}
