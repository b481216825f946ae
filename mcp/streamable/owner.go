package streamable

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"

	"github.com/mcpwire/mcpwire/internal/principal"
)

// A session is bound to the principal that opened it: a session id is not
// a credential (MCP's security best practices, "Session Hijacking"). Its
// owner is the identity of the principal the initialize request's (or,
// for HTTP+SSE, the GET's) context carried, "" when none did. A request
// naming the session whose context carries another identity — another
// subject, or none when the session had one — is answered exactly as a
// request naming an unknown session: 404, -32600, "no such session". That
// is the specification's own advice (key sessions by user and session id,
// so another user's id finds nothing), it tells a prober nothing about
// which ids exist, and a client that changed user recovers as it does
// from an expired session: it initializes a new one. A 403 would instead
// read, to the clients that do step-up authorization, as a request for a
// token with more scopes. An expired or refused token is refused by the
// authentication in front (401) and ends nothing: the session lives on,
// and the next request with a valid token of the same principal is
// served.
//
// The identity is internal/principal.ID's: a string principal itself, a
// fmt.Stringer's String (oauth.Principal's issuer and subject), else the
// value's Go syntax. An Authenticator whose principals carry what changes
// from token to token (an expiry, say) should give them a String method
// naming the caller alone, or each new token finds its session unknown.
//
// A SessionStore keeps the owner with the session, as the SHA-256 digest
// of its identity (a store holds no subject in the clear), so an instance
// re-creating the session checks it too.

// ownerOf returns the identity r's session is bound to.
func ownerOf(r *http.Request) string { return principal.ID(r.Context()) }

// ownerLine begins a stored session state that names its owner: a line
// "mcpwire-owner:<hex digest>\n" before the initialize request. A state
// without it (a session with no owner) is the initialize request alone,
// which begins with '{' or white space.
var ownerLine = []byte("mcpwire-owner:")

// ownerDigest returns the digest of owner a store keeps, "" for none.
func ownerDigest(owner string) string {
	if owner == "" {
		return ""
	}
	d := sha256.Sum256([]byte(owner))
	return hex.EncodeToString(d[:])
}

// storedState returns what a store keeps of a new session of owner whose
// initialize request was initialize.
func storedState(owner string, initialize []byte) []byte {
	d := ownerDigest(owner)
	if d == "" {
		return initialize
	}
	b := make([]byte, 0, len(ownerLine)+len(d)+1+len(initialize))
	b = append(append(append(append(b, ownerLine...), d...), '\n'), initialize...)
	return b
}

// parseState splits a stored state into its owner's digest ("" for none)
// and its initialize request.
func parseState(state []byte) (digest string, initialize []byte) {
	rest, ok := bytes.CutPrefix(state, ownerLine)
	if !ok {
		return "", state
	}
	d, init, ok := bytes.Cut(rest, []byte{'\n'})
	if !ok {
		return "-", nil // damaged: matches no owner
	}
	return string(d), init
}
