package sealed

import (
	"crypto/sha256"
	"encoding/binary"
)

// Binding is the digest of what a token is for. A token opens only with
// the Binding it was sealed with, so that state issued for one request
// cannot be replayed on another. The zero Binding binds to nothing in
// particular.
type Binding [sha256.Size]byte

// Bind returns the Binding of parts: for MCP's requestState, the method,
// a canonical form of the request's salient params and the principal's
// identity. Each part is length-prefixed before hashing, so that
// ("ab", "c") and ("a", "bc") differ.
func Bind(parts ...[]byte) Binding {
	h := sha256.New()
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write(p)
	}
	var b Binding
	h.Sum(b[:0])
	return b
}
