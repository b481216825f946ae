package sealed

import (
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
)

// testKey returns a key with id whose secret is fixed by id, so that
// tests and the fuzz corpus can rebuild it.
func testKey(id uint32) Key {
	k := Key{ID: id, Secret: make([]byte, KeySize)}
	for i := range k.Secret {
		k.Secret[i] = byte(id) + byte(i)
	}
	return k
}

// testRand is a reproducible nonce source.
func testRand() io.Reader {
	return rand.NewChaCha8([32]byte([]byte("mcpwire sealed test nonce source")))
}

var testBinding = Bind([]byte("tools/call"), []byte(`{"name":"deploy"}`))

func newRing(t testing.TB, o *Options) *Ring {
	t.Helper()
	r, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func seal(t testing.TB, r *Ring, payload string, b Binding) string {
	t.Helper()
	tok, err := r.Seal([]byte(payload), b)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// keyIDOf reads the key id a token names.
func keyIDOf(t testing.TB, token string) uint32 {
	t.Helper()
	raw, err := encoding.DecodeString(token)
	if err != nil || len(raw) < headerLen {
		t.Fatalf("token %q does not decode: %v", token, err)
	}
	return binary.BigEndian.Uint32(raw[1:headerLen])
}

// wantOpen opens token and checks that it gives payload.
func wantOpen(t testing.TB, r *Ring, token string, b Binding, payload string) {
	t.Helper()
	got, err := r.Open(token, b)
	if err != nil {
		t.Fatalf("Open: %v, want the payload", err)
	}
	if string(got) != payload {
		t.Fatalf("Open = %q, want %q", got, payload)
	}
}

// wantRefused opens token and checks that it is refused with want.
func wantRefused(t testing.TB, r *Ring, token string, b Binding, want error) {
	t.Helper()
	got, err := r.Open(token, b)
	if !errors.Is(err, want) {
		t.Fatalf("Open = %q, %v; want error %v", got, err, want)
	}
	if got != nil {
		t.Fatalf("Open refused the token (%v) but returned a payload %q", err, got)
	}
}

// refusals are the errors Open may return.
var refusals = []error{ErrMalformed, ErrUnknownKey, ErrTampered, ErrExpired, ErrWrongBinding, ErrTooLarge}

// isRefusal reports whether err is one of refusals.
func isRefusal(err error) bool {
	for _, r := range refusals {
		if errors.Is(err, r) {
			return true
		}
	}
	return false
}
