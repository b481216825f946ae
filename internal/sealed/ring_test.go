package sealed

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestRing_expiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl = time.Minute
		r := newRing(t, &Options{TTL: ttl})
		tok := seal(t, r, "x", testBinding)
		time.Sleep(ttl - time.Millisecond)
		wantOpen(t, r, tok, testBinding, "x")
		time.Sleep(time.Millisecond)
		wantRefused(t, r, tok, testBinding, ErrExpired)
		// A fresh token opens again: expiry is per token.
		wantOpen(t, r, seal(t, r, "y", testBinding), testBinding, "y")
	})
}

func TestRing_defaultTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRing(t, nil)
		tok := seal(t, r, "x", testBinding)
		time.Sleep(DefaultTTL - time.Millisecond)
		wantOpen(t, r, tok, testBinding, "x")
		time.Sleep(time.Millisecond)
		wantRefused(t, r, tok, testBinding, ErrExpired)
	})
}

func TestRing_rotation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl, overlap = time.Hour, time.Minute // overlap shorter than the TTL, to tell them apart
		r := newRing(t, &Options{Keys: []Key{testKey(1)}, TTL: ttl, Overlap: overlap})
		old := seal(t, r, "old", testBinding)
		if err := r.Rotate(testKey(2)); err != nil {
			t.Fatal(err)
		}
		fresh := seal(t, r, "new", testBinding)
		if id := keyIDOf(t, fresh); id != 2 {
			t.Fatalf("a token sealed after Rotate names key %d, want 2", id)
		}
		time.Sleep(overlap - time.Millisecond)
		wantOpen(t, r, old, testBinding, "old") // in the overlap
		time.Sleep(time.Millisecond)
		wantRefused(t, r, old, testBinding, ErrUnknownKey) // after it, though not expired
		wantOpen(t, r, fresh, testBinding, "new")

		// The next rotation drops key 1 for good and retires key 2.
		if err := r.Rotate(testKey(3)); err != nil {
			t.Fatal(err)
		}
		if got := ids(r); len(got) != 2 || got[0] != 3 || got[1] != 2 {
			t.Fatalf("keys after the second rotation = %v, want [3 2]", got)
		}
		wantOpen(t, r, fresh, testBinding, "new")
		time.Sleep(overlap)
		wantRefused(t, r, fresh, testBinding, ErrUnknownKey)
	})
}

func TestRing_rotationOverlapDefaultsToTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl = time.Minute
		r := newRing(t, &Options{Keys: []Key{testKey(1)}, TTL: ttl})
		tok := seal(t, r, "x", testBinding)
		if err := r.Rotate(testKey(2)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(ttl - time.Millisecond)
		wantOpen(t, r, tok, testBinding, "x") // no token dies early because of a rotation
		if err := r.Rotate(testKey(3)); err != nil {
			t.Fatal(err)
		}
		if got := ids(r); len(got) != 3 {
			t.Fatalf("keys = %v, want key 1 still held in its overlap", got)
		}
	})
}

func ids(r *Ring) []uint32 {
	var ids []uint32
	for _, k := range r.keys.Load().keys {
		ids = append(ids, k.id)
	}
	return ids
}

// Instances configured with the same keys open each other's tokens, and
// a fleet rotates in two steps without refusing a token.
func TestRing_sharedKeysAcrossInstances(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newRing(t, &Options{Keys: []Key{testKey(1)}})
		b := newRing(t, &Options{Keys: []Key{testKey(1)}})
		wantOpen(t, b, seal(t, a, "from a", testBinding), testBinding, "from a")

		// Step 1: b learns key 2 (opens only); a has not yet.
		b = newRing(t, &Options{Keys: []Key{testKey(1), testKey(2)}})
		fromA := seal(t, a, "a1", testBinding)
		wantOpen(t, b, fromA, testBinding, "a1")
		if id := keyIDOf(t, seal(t, b, "b1", testBinding)); id != 1 {
			t.Fatalf("step 1 sealed with key %d, want 1", id)
		}

		// Step 2: key 2 seals everywhere; key 1 opens for a while.
		old := testKey(1)
		old.Until = time.Now().Add(DefaultTTL)
		a = newRing(t, &Options{Keys: []Key{testKey(2), old}})
		b = newRing(t, &Options{Keys: []Key{testKey(2), old}})
		wantOpen(t, b, fromA, testBinding, "a1")
		fromA2 := seal(t, a, "a2", testBinding)
		wantOpen(t, b, fromA2, testBinding, "a2")
		time.Sleep(DefaultTTL)
		wantRefused(t, b, fromA, testBinding, ErrUnknownKey)
	})
}

func TestNew_refusesBadKeys(t *testing.T) {
	short := testKey(1)
	short.Secret = short.Secret[:KeySize-1]
	later := testKey(1)
	later.Until = time.Now().Add(time.Hour)
	for name, c := range map[string]struct {
		opts Options
		want string
	}{
		"short secret":       {Options{Keys: []Key{testKey(2), short}}, "key 1: secret is 31 bytes, want 32"},
		"duplicate id":       {Options{Keys: []Key{testKey(1), testKey(1)}}, "two keys have id 1"},
		"sealing key ends":   {Options{Keys: []Key{later}}, "the sealing key (the first) has a Until"},
		"no randomness":      {Options{Rand: strings.NewReader("")}, "drawing a key id: EOF"},
		"too little entropy": {Options{Rand: strings.NewReader("1234567")}, "drawing a key: unexpected EOF"},
	} {
		t.Run(name, func(t *testing.T) {
			r, err := New(&c.opts)
			if err == nil || !strings.HasSuffix(err.Error(), c.want) {
				t.Fatalf("New = %v, %v; want an error ending %q", r, err, c.want)
			}
			for _, k := range c.opts.Keys {
				if len(k.Secret) > 0 && strings.Contains(err.Error(), string(k.Secret)) {
					t.Fatalf("error %q carries a secret", err)
				}
			}
		})
	}
}

func TestRing_rotateRefusesBadKeys(t *testing.T) {
	r := newRing(t, &Options{Keys: []Key{testKey(1)}})
	later := testKey(2)
	later.Until = time.Now().Add(time.Hour)
	short := testKey(3)
	short.Secret = nil
	for name, k := range map[string]Key{"same id": testKey(1), "with a Until": later, "no secret": short} {
		t.Run(name, func(t *testing.T) {
			if err := r.Rotate(k); err == nil {
				t.Fatal("Rotate succeeded")
			}
			if got := ids(r); len(got) != 1 || got[0] != 1 {
				t.Fatalf("a refused Rotate changed the keys to %v", got)
			}
		})
	}
}

func TestRing_sealFailsWithoutNonce(t *testing.T) {
	r := newRing(t, &Options{Keys: []Key{testKey(1)}, Rand: io.LimitReader(testRand(), 23)})
	if tok, err := r.Seal([]byte("x"), testBinding); err == nil || tok != "" {
		t.Fatalf("Seal with a 23-byte nonce source = %q, %v; want an error", tok, err)
	}
}

func TestNewKey(t *testing.T) {
	a, err := NewKey(9, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewKey(9, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != 9 || len(a.Secret) != KeySize || string(a.Secret) == string(b.Secret) {
		t.Fatalf("NewKey gave %d, %d bytes (twice the same: %t)", a.ID, len(a.Secret), string(a.Secret) == string(b.Secret))
	}
	if _, err := NewKey(9, strings.NewReader("short")); err == nil {
		t.Fatal("NewKey with a short source succeeded")
	}
}

func TestRPCError(t *testing.T) {
	r := newRing(t, &Options{Keys: []Key{testKey(1)}, MaxPayload: 8})
	secret := string(testKey(1).Secret)
	for _, c := range []struct {
		err    error
		reason string
	}{
		{ErrMalformed, "malformed"},
		{ErrUnknownKey, "unknownKey"},
		{ErrTampered, "tampered"},
		{ErrExpired, "expired"},
		{ErrWrongBinding, "wrongRequest"},
		{ErrTooLarge, "tooLarge"},
		{func() error { _, err := r.Open(strings.Repeat("A", 1000), testBinding); return err }(), "tooLarge"},
	} {
		e := RPCError(c.err)
		if e == nil || e.Code != -32602 {
			t.Fatalf("RPCError(%v) = %v, want code -32602", c.err, e)
		}
		d, ok := e.Data.(*RPCErrorData)
		if !ok || d.Field != "requestState" || d.Reason != c.reason {
			t.Fatalf("RPCError(%v).Data = %#v, want field requestState, reason %q", c.err, e.Data, c.reason)
		}
		if !strings.HasPrefix(e.Message, "Invalid params: requestState ") || strings.Contains(e.Message, secret) {
			t.Fatalf("RPCError(%v).Message = %q", c.err, e.Message)
		}
	}
	if e := RPCError(errors.New("other")); e != nil {
		t.Fatalf("RPCError of another error = %v, want nil", e)
	}
	if e := RPCError(nil); e != nil {
		t.Fatalf("RPCError(nil) = %v, want nil", e)
	}
}
