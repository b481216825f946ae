package sealed

import (
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// Token layout before base64; see the package documentation.
const (
	version   = 1
	headerLen = 1 + 4 // version, key id: the associated data
	nonceLen  = chacha20poly1305.NonceSizeX
	expiryLen = 8
	bindLen   = len(Binding{})
	tagLen    = chacha20poly1305.Overhead

	sealedStart  = headerLen + nonceLen // where the ciphertext begins
	payloadStart = expiryLen + bindLen  // offset of the payload in the plaintext

	// Overhead is how many bytes a token holds beyond its payload, before
	// base64.
	Overhead = sealedStart + payloadStart + tagLen
)

// encoding is strict: a token whose last character carries non-zero
// unused bits is refused rather than read as its canonical neighbour, so
// that no two texts open as the same token.
var encoding = base64.RawURLEncoding.Strict()

// Seal returns a token holding payload for b, sealed under the ring's
// current key; it expires after the ring's TTL. It fails with an error
// wrapping ErrTooLarge if payload is longer than the ring's MaxPayload, or
// if the nonce cannot be drawn from the ring's Rand. payload is not
// retained.
func (r *Ring) Seal(payload []byte, b Binding) (string, error) {
	if len(payload) > r.maxPayload {
		return "", &tooLarge{"payload", len(payload), r.maxPayload}
	}
	k := &r.keys.Load().keys[0]
	n := Overhead + len(payload)
	// One allocation holds the binary token and, after it, its text.
	buf := make([]byte, n, n+encoding.EncodedLen(n))
	buf[0] = version
	binary.BigEndian.PutUint32(buf[1:headerLen], k.id)
	nonce := buf[headerLen:sealedStart]
	if _, err := io.ReadFull(r.rand, nonce); err != nil {
		return "", errors.New("sealed: drawing a nonce: " + err.Error())
	}
	plain := buf[sealedStart : n-tagLen]
	binary.BigEndian.PutUint64(plain, uint64(time.Now().Add(r.ttl).UnixMilli()))
	copy(plain[expiryLen:], b[:])
	copy(plain[payloadStart:], payload)
	k.aead.Seal(plain[:0], nonce, plain, buf[:headerLen])
	return string(encoding.AppendEncode(buf[n:], buf)), nil
}

// Open returns the payload of token if a key of the ring sealed it for b
// and it has not expired. Otherwise it returns an error that wraps one of
// ErrTooLarge (checked before decoding), ErrMalformed, ErrUnknownKey,
// ErrTampered, ErrExpired or ErrWrongBinding, tested in that order. The
// payload is the caller's.
func (r *Ring) Open(token string, b Binding) ([]byte, error) {
	if len(token) > r.maxToken {
		return nil, &tooLarge{"token", len(token), r.maxToken}
	}
	if encoding.DecodedLen(len(token)) < Overhead {
		return nil, ErrMalformed
	}
	buf, err := encoding.AppendDecode(nil, []byte(token))
	if err != nil || len(buf) < Overhead || buf[0] != version {
		return nil, ErrMalformed
	}
	k := r.keys.Load().find(binary.BigEndian.Uint32(buf[1:headerLen]))
	now := time.Now()
	if k == nil || !k.until.IsZero() && !now.Before(k.until) {
		return nil, ErrUnknownKey
	}
	ct := buf[sealedStart:]
	plain, err := k.aead.Open(ct[:0], buf[headerLen:sealedStart], ct, buf[:headerLen])
	if err != nil {
		return nil, ErrTampered
	}
	if now.UnixMilli() >= int64(binary.BigEndian.Uint64(plain)) {
		return nil, ErrExpired
	}
	if subtle.ConstantTimeCompare(plain[expiryLen:payloadStart], b[:]) != 1 {
		return nil, ErrWrongBinding
	}
	return plain[payloadStart:len(plain):len(plain)], nil
}
