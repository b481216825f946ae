package mcp

import (
	"time"

	"github.com/mcpwire/mcpwire/internal/sealed"
)

// Defaults of RequestStateOptions.
const (
	// DefaultRequestStateTTL is how long a requestState opens after it
	// was issued, unless RequestStateOptions.TTL says otherwise.
	DefaultRequestStateTTL = sealed.DefaultTTL
	// DefaultRequestStateMaxBytes bounds what one requestState carries
	// (the answers of earlier rounds and the handler's own state, before
	// sealing), unless RequestStateOptions.MaxBytes says otherwise.
	DefaultRequestStateMaxBytes = sealed.DefaultMaxPayload
)

// RequestStateKeySize is the length in bytes of a RequestStateKey's
// Secret.
const RequestStateKeySize = sealed.KeySize

// RequestStateKey is a secret key that seals and opens requestState
// (multi-round-trip requests of 2026-07-28; see the package
// documentation).
type RequestStateKey struct {
	// ID names the key inside the states it seals; it is not secret. The
	// keys of one server have distinct ids.
	ID uint32
	// Secret is RequestStateKeySize bytes from a cryptographically secure
	// source (crypto/rand), shared by every instance of one server and by
	// nothing else. The server keeps a copy.
	Secret []byte
	// Until, if not zero, is the instant from which the key no longer
	// opens states. The key that seals (the first) has none.
	Until time.Time
}

// NewRequestStateKey returns a key with this id and a secret drawn from
// crypto/rand.
func NewRequestStateKey(id uint32) (RequestStateKey, error) {
	k, err := sealed.NewKey(id, nil)
	return RequestStateKey{ID: k.ID, Secret: k.Secret}, err
}

// RequestStateOptions configure how a server seals the requestState of
// its multi-round-trip requests (ServerOptions.RequestState). A zero
// field takes its default.
//
// A requestState is encrypted and authenticated (XChaCha20-Poly1305)
// under the first key, bound to the request's method, its params other
// than _meta, inputResponses and requestState, and the authenticated
// principal of the request's context (if any: a string, a fmt.Stringer's
// String, else its Go syntax, so that a principal given as a pointer
// binds to that pointer alone), and it expires. A state
// that was altered, sealed by a key the server does not hold, expired,
// or presented with another request or by another principal is refused
// with -32602 (invalid params) whose data names the reason.
type RequestStateOptions struct {
	// Keys: the first seals, each opens the states sealed under it until
	// its Until. Give the same keys to every instance of a server behind
	// one endpoint, so that any of them opens what another sealed. None:
	// the server draws a key at random, and its states open only in the
	// process that sealed them.
	Keys []RequestStateKey
	// TTL is how long a state opens after it was sealed (default
	// DefaultRequestStateTTL): it bounds how long a client may take to
	// answer, and how long a state can be replayed.
	TTL time.Duration
	// Overlap is how long a key that RotateRequestStateKey replaced goes
	// on opening the states it sealed (default: TTL, so that no state
	// dies early because of a rotation).
	Overlap time.Duration
	// MaxBytes bounds what one state carries before sealing (default
	// DefaultRequestStateMaxBytes); the sealed text is about 4/3 of it
	// plus 100 bytes. A request whose earlier answers and handler state
	// exceed it is refused with -32602, and a longer state is refused
	// unopened.
	MaxBytes int
}

// Validate reports what is wrong with o, or nil: a secret that is not
// RequestStateKeySize bytes, two keys with one id, or a Until on the
// first key. NewServer panics with this error; servers that read keys
// from their configuration check it first.
func (o *RequestStateOptions) Validate() error {
	_, err := o.ring()
	return err
}

// ring returns the sealed.Ring o describes (nil o: the defaults).
func (o *RequestStateOptions) ring() (*sealed.Ring, error) {
	if o == nil {
		return sealed.New(nil)
	}
	so := &sealed.Options{TTL: o.TTL, Overlap: o.Overlap, MaxPayload: o.MaxBytes}
	for _, k := range o.Keys {
		so.Keys = append(so.Keys, sealed.Key{ID: k.ID, Secret: k.Secret, Until: k.Until})
	}
	return sealed.New(so)
}

// RotateRequestStateKey makes k the key that seals requestState from now
// on. The key it replaces goes on opening the states it sealed for
// RequestStateOptions.Overlap (or until its own Until, if sooner). k must
// have no Until, a secret of RequestStateKeySize bytes and an id no key
// of the server holds. Safe to call while requests are served.
//
// A fleet rotates in two steps, so that no instance meets a state under
// a key it lacks: first every instance gets the new key after its
// current ones (RequestStateOptions.Keys, at a restart); then each
// rotates to it.
func (s *Server) RotateRequestStateKey(k RequestStateKey) error {
	return s.states.Rotate(sealed.Key{ID: k.ID, Secret: k.Secret, Until: k.Until})
}

// SetRequestStateKeys replaces the keys that seal and open requestState,
// with the rules of RequestStateOptions.Keys (and at least one key): the
// first seals from now on, each opens the states sealed under it until
// its Until; a state sealed under a key left out no longer opens. On
// error the server keeps its keys. Safe to call while requests are
// served: a request sees the keys before or after the call, never a mix.
//
// It is how a shared key ring (package redisstore's KeyRing) keeps the
// instances of a server in step; the two-step rule of
// RotateRequestStateKey is then the caller's: a key is among the keys of
// every instance before it is the first key of any.
func (s *Server) SetRequestStateKeys(keys []RequestStateKey) error {
	ks := make([]sealed.Key, len(keys))
	for i, k := range keys {
		ks[i] = sealed.Key{ID: k.ID, Secret: k.Secret, Until: k.Until}
	}
	return s.states.SetKeys(ks)
}
