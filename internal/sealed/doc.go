// Package sealed seals small server state into opaque text tokens that a
// client carries and hands back, and opens them again: MCP's requestState
// (multi-round-trip requests, MCP 2026-07-28), which the specification
// says a server must treat as attacker-controlled input and protect with
// an HMAC or AEAD.
//
// A [Ring] seals a payload under its current key with an AEAD
// (XChaCha20-Poly1305, a fresh random nonce per token), together with an
// expiry and a [Binding]: a digest of what the token is for (the method,
// the request's salient params, the principal). [Ring.Open] gives the
// payload back only if the token was sealed by a key of the ring, was not
// altered, has not expired and is presented with the same Binding;
// otherwise it returns one of the errors below, and [RPCError] gives the
// JSON-RPC error to answer with.
//
// # Keys and rotation
//
// The server author gives the keys ([Options.Keys]) so that every
// instance of a server opens the tokens any of them sealed, or lets the
// ring draw one at random (tokens then open only in the process that
// sealed them). The first key seals; every key of the ring opens the
// tokens sealed under it until the key's [Key.Until], if it has one. A
// token names its key by id, so that opening uses that key alone.
// [Ring.Rotate] makes a new key the one that seals and lets the one it
// replaces go on opening for [Options.Overlap] (by default the tokens'
// lifetime, so that no token dies early because of a rotation).
//
// A fleet rotates in two steps so that no instance meets a token under a
// key it does not hold: first every instance gets the new key after the
// current one (it opens, it does not seal yet); then every instance gets
// it first, with the old key after it, given a Until.
//
// # Token format
//
// The token is the unpadded URL-safe base64 (RFC 4648 §5) of:
//
//	version (1 byte) | key id (4, big-endian) | nonce (24) | ciphertext
//
// where the ciphertext seals, with the version and key id as associated
// data, the expiry (Unix milliseconds, 8 bytes, big-endian), the
// Binding (32 bytes) and the payload, followed by the 16-byte tag. A
// token is [Overhead] bytes longer than its payload before base64.
//
// # Bounds and errors
//
// Seal refuses a payload longer than [Options.MaxPayload] and Open
// refuses a token longer than the longest one the ring can seal before
// decoding it ([ErrTooLarge]). Open tells apart a token that is not one
// at all ([ErrMalformed]), one under a key the ring does not hold or no
// longer accepts ([ErrUnknownKey]), one that fails authentication
// ([ErrTampered]), one past its expiry ([ErrExpired]) and one presented
// for another request ([ErrWrongBinding]). Their texts never carry key
// material, the payload or the token.
//
// # Security considerations
//
// XChaCha20-Poly1305 is chosen over AES-GCM for its 192-bit nonce: with
// random nonces AES-GCM's 96 bits allow about 2^32 seals per key before
// a nonce is likely to repeat (NIST SP 800-38D), and a repeat reveals
// GCM's authentication key. A key shared by a fleet and kept for weeks
// can reach that count; a 192-bit random nonce cannot repeat in
// practice. Sealing also encrypts, so a client learns nothing of the
// state it carries but its length.
//
// A token opens as many times as it is presented until it expires: a
// Ring does not make a token single-use. State that must be consumed at
// most once needs a server-side record of its own.
package sealed
