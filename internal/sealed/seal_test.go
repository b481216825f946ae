package sealed

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

func TestRing_roundTrip(t *testing.T) {
	r := newRing(t, &Options{MaxPayload: 1 << 10})
	for _, payload := range []string{"", "x", `{"step":2,"answers":{"login":"octocat"}}`, strings.Repeat("é", 512)} {
		tok := seal(t, r, payload, testBinding)
		if strings.Trim(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			t.Fatalf("token %q is not URL-safe base64 without padding", tok)
		}
		if want := encoding.EncodedLen(Overhead + len(payload)); len(tok) != want {
			t.Fatalf("token of a %d-byte payload is %d characters, want %d", len(payload), len(tok), want)
		}
		// Long enough that random bytes do not spell it by chance (a
		// 1-byte payload's 2 characters do, in 1 token of some 40).
		if len(payload) >= 16 && strings.Contains(tok, encoding.EncodeToString([]byte(payload))) {
			t.Fatalf("token %q carries its payload in clear", tok)
		}
		wantOpen(t, r, tok, testBinding, payload)
		wantOpen(t, r, tok, testBinding, payload) // a token opens as often as it is presented
	}
}

func TestRing_sealsWithAFreshNonce(t *testing.T) {
	r := newRing(t, nil)
	a, b := seal(t, r, "same", testBinding), seal(t, r, "same", testBinding)
	if a == b {
		t.Fatalf("two seals of the same payload gave the same token %q", a)
	}
}

// The token format is a contract between the instances of a fleet, which
// may run different versions: a fixed key, nonce source and clock give a
// fixed token.
func TestRing_tokenFormatIsStable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRing(t, &Options{Keys: []Key{testKey(7)}, Rand: testRand()})
		const want = "AQAAAAdamaOTH9mTrV8Jq_snIqSiUZ6NVf7NUsF9Z6tEsM8ctNpbU-Z2ogPMRNPGWPRPDl5TMR8I1pq41C0uEKMUINWX7kfhtYY0ZmrrJV-GqAmW90igux7c"
		if got := seal(t, r, "state", testBinding); got != want {
			t.Fatalf("token = %q, want %q", got, want)
		}
		wantOpen(t, r, want, testBinding, "state")
		checkFormat(t, want, testKey(7), testRand(), time.Now().Add(DefaultTTL), testBinding, "state")
	})
}

// checkFormat reads token as the package documentation describes it,
// with the AEAD directly, not with Open.
func checkFormat(t *testing.T, token string, k Key, nonces io.Reader, expiry time.Time, b Binding, payload string) {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		t.Fatal(err)
	}
	nonce := make([]byte, chacha20poly1305.NonceSizeX)
	if _, err := io.ReadFull(nonces, nonce); err != nil {
		t.Fatal(err)
	}
	head := binary.BigEndian.AppendUint32([]byte{1}, k.ID)
	if !bytes.HasPrefix(raw, append(head, nonce...)) {
		t.Fatalf("token begins % x, want version 1, key id %d, nonce % x", raw[:5+len(nonce)], k.ID, nonce)
	}
	aead, err := chacha20poly1305.NewX(k.Secret)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := aead.Open(nil, nonce, raw[5+len(nonce):], head)
	if err != nil {
		t.Fatalf("the ciphertext does not open with the key, nonce and header: %v", err)
	}
	want := binary.BigEndian.AppendUint64(nil, uint64(expiry.UnixMilli()))
	want = append(append(want, b[:]...), payload...)
	if !bytes.Equal(plain, want) {
		t.Fatalf("plaintext = % x, want % x (expiry, binding, payload)", plain, want)
	}
}

func TestOpen_refusesEveryFlippedBit(t *testing.T) {
	r := newRing(t, &Options{Keys: []Key{testKey(1)}})
	tok := seal(t, r, `{"step":1}`, testBinding)
	raw, err := encoding.DecodeString(tok)
	if err != nil {
		t.Fatal(err)
	}
	// In the binary token: the version byte makes it malformed, the key
	// id names a key the ring lacks, anything else fails authentication.
	for i := range raw {
		for bit := range 8 {
			bad := bytes.Clone(raw)
			bad[i] ^= 1 << bit
			want := ErrTampered
			switch {
			case i == 0:
				want = ErrMalformed
			case i < headerLen:
				want = ErrUnknownKey
			}
			wantRefused(t, r, encoding.EncodeToString(bad), testBinding, want)
		}
	}
	// In the text: a flipped bit makes a character outside the alphabet,
	// or changes the bytes; never an accepted token.
	for i := range len(tok) {
		for bit := range 8 {
			bad := []byte(tok)
			bad[i] ^= 1 << bit
			if got, err := r.Open(string(bad), testBinding); !isRefusal(err) {
				t.Fatalf("token with bit %d of character %d flipped: Open = %q, %v; want a refusal", bit, i, got, err)
			}
		}
	}
	wantOpen(t, r, tok, testBinding, `{"step":1}`)
}

// The conformance suite (input-required-result-tampered-state) appends
// "-TAMPERED" to the state; it must be refused with -32602.
func TestOpen_refusesTheConformanceSuitesTamperedState(t *testing.T) {
	r := newRing(t, nil)
	for _, payload := range []string{"", "a", "ab"} { // three lengths mod 3
		tok := seal(t, r, payload, testBinding)
		_, err := r.Open(tok+"-TAMPERED", testBinding)
		if !errors.Is(err, ErrTampered) && !errors.Is(err, ErrMalformed) {
			t.Fatalf("Open(token+\"-TAMPERED\") = %v, want ErrTampered or ErrMalformed", err)
		}
		if e := RPCError(err); e == nil || e.Code != -32602 {
			t.Fatalf("RPCError(%v) = %v, want code -32602", err, e)
		}
	}
}

func TestOpen_refusesMalformedTokens(t *testing.T) {
	r := newRing(t, &Options{Keys: []Key{testKey(1)}})
	tok := seal(t, r, "x", testBinding)
	for name, bad := range map[string]string{
		"empty":            "",
		"short":            tok[:encoding.EncodedLen(Overhead)-1],
		"padded":           tok + "==",
		"standard base64":  strings.NewReplacer("-", "+", "_", "/").Replace(tok) + "+/",
		"white space":      tok[:10] + " " + tok[10:],
		"non-ASCII":        tok[:10] + "é" + tok[12:],
		"unknown version":  "Ag" + tok[2:],
		"truncated by one": tok[:len(tok)-1],
	} {
		t.Run(name, func(t *testing.T) {
			_, err := r.Open(bad, testBinding)
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTampered) {
				t.Fatalf("Open(%q) = %v, want ErrMalformed (or ErrTampered)", bad, err)
			}
		})
	}
	// A last character with non-zero unused bits decodes, leniently, to
	// the same bytes: a strict decoder refuses it.
	n := Overhead + 1 // 1 byte payload: the text ends with unused bits
	if n%3 == 0 {
		t.Fatal("the payload length leaves no unused bits")
	}
	last := strings.IndexByte(alphabet, tok[len(tok)-1])
	wantRefused(t, r, tok[:len(tok)-1]+string(alphabet[last|1]), testBinding, ErrMalformed)
}

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

func TestOpen_refusesForeignTokens(t *testing.T) {
	ours := newRing(t, nil)
	theirs := newRing(t, nil)
	if keyIDOf(t, seal(t, ours, "", Binding{})) == keyIDOf(t, seal(t, theirs, "", Binding{})) {
		t.Skip("two random key ids collided (probability 2^-32)")
	}
	wantRefused(t, ours, seal(t, theirs, "x", testBinding), testBinding, ErrUnknownKey)

	// Another server's key with the same id: authentication fails.
	other := testKey(1)
	other.Secret[0] ^= 1
	wantRefused(t, newRing(t, &Options{Keys: []Key{testKey(1)}}),
		seal(t, newRing(t, &Options{Keys: []Key{other}}), "x", testBinding), testBinding, ErrTampered)
}

func TestOpen_refusesAnotherBinding(t *testing.T) {
	r := newRing(t, nil)
	tok := seal(t, r, "x", Bind([]byte("tools/call"), []byte("deploy"), []byte("alice")))
	for name, b := range map[string]Binding{
		"another method":    Bind([]byte("prompts/get"), []byte("deploy"), []byte("alice")),
		"another request":   Bind([]byte("tools/call"), []byte("destroy"), []byte("alice")),
		"another principal": Bind([]byte("tools/call"), []byte("deploy"), []byte("mallory")),
		"parts re-cut":      Bind([]byte("tools/call"), []byte("deployalice")),
		"none":              {},
	} {
		t.Run(name, func(t *testing.T) { wantRefused(t, r, tok, b, ErrWrongBinding) })
	}
	wantOpen(t, r, tok, Bind([]byte("tools/call"), []byte("deploy"), []byte("alice")), "x")
}

func TestRing_sizeBounds(t *testing.T) {
	const max = 100
	r := newRing(t, &Options{MaxPayload: max})
	tok := seal(t, r, strings.Repeat("a", max), testBinding)
	wantOpen(t, r, tok, testBinding, strings.Repeat("a", max))

	if _, err := r.Seal(make([]byte, max+1), testBinding); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Seal of %d bytes: %v, want ErrTooLarge", max+1, err)
	}
	// A token one character longer than the longest the ring seals is
	// refused for its length, not decoded.
	wantRefused(t, r, tok+"A", testBinding, ErrTooLarge)
	wantRefused(t, r, strings.Repeat("!", len(tok)+1), testBinding, ErrTooLarge)
	wantRefused(t, r, strings.Repeat("!", len(tok)), testBinding, ErrMalformed)

	// A ring with a larger bound opens it; one with a smaller bound does not.
	small := newRing(t, &Options{MaxPayload: max - 1})
	if _, err := small.Open(tok, testBinding); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Open on a ring bounded below the token: %v, want ErrTooLarge", err)
	}
}

func TestBind_separatesParts(t *testing.T) {
	for _, c := range [][2]Binding{
		{Bind([]byte("ab"), []byte("c")), Bind([]byte("a"), []byte("bc"))},
		{Bind([]byte("a")), Bind([]byte("a"), nil)},
		{Bind(), Bind(nil)},
	} {
		if c[0] == c[1] {
			t.Fatalf("two different lists of parts bind alike: %x", c[0])
		}
	}
	first, again := Bind([]byte("a"), []byte("b")), Bind([]byte("a"), []byte("b"))
	if first != again {
		t.Fatal("Bind is not deterministic")
	}
}
