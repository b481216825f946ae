package sealed

import (
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// Defaults of Options.
const (
	// DefaultTTL is how long a token opens after it is sealed, unless
	// Options.TTL says otherwise: long enough for a person to answer an
	// elicitation, short enough to bound a replay.
	DefaultTTL = 10 * time.Minute
	// DefaultMaxPayload bounds the payload of one token, unless
	// Options.MaxPayload says otherwise.
	DefaultMaxPayload = 16 << 10
)

var cryptoRand = rand.Reader

// Options configure a Ring. A nil *Options gives the defaults; New copies
// the value. A zero field takes its default.
type Options struct {
	// Keys are the ring's keys: the first seals, every one opens the
	// tokens sealed under it until its Until. None: the ring draws one
	// key at random, which no other ring holds.
	Keys []Key
	// TTL is how long a token opens after it is sealed (default
	// DefaultTTL).
	TTL time.Duration
	// Overlap is how long a key that Rotate replaced goes on opening the
	// tokens sealed under it (default: TTL).
	Overlap time.Duration
	// MaxPayload bounds the payload Seal accepts, in bytes (default
	// DefaultMaxPayload); Open refuses a token longer than the one such a
	// payload makes.
	MaxPayload int
	// Rand is the source of nonces and of a key drawn at random; nil:
	// crypto/rand. Tests set it to make tokens reproducible.
	Rand io.Reader
}

// Ring seals and opens tokens under a set of keys (see the package
// documentation). Safe for concurrent use: Seal and Open take no lock,
// and see each Rotate whole or not at all.
type Ring struct {
	ttl, overlap time.Duration
	maxPayload   int
	maxToken     int // longest token text Open accepts
	rand         io.Reader

	mu   sync.Mutex // serialises Rotate
	keys atomic.Pointer[keySet]
}

// keySet is the ring's keys at one moment; immutable once stored.
type keySet struct {
	keys []ringKey // keys[0] seals
}

type ringKey struct {
	id    uint32
	aead  cipher.AEAD
	until time.Time // zero: no end
}

// find returns the key named id, or nil.
func (s *keySet) find(id uint32) *ringKey {
	for i := range s.keys {
		if s.keys[i].id == id {
			return &s.keys[i]
		}
	}
	return nil
}

// New returns a ring configured by opts. It fails if a key is not
// KeySize bytes, two keys share an id, the first key has a Until, or no
// key was given and none could be drawn.
func New(opts *Options) (*Ring, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.Overlap <= 0 {
		o.Overlap = o.TTL
	}
	if o.MaxPayload <= 0 {
		o.MaxPayload = DefaultMaxPayload
	}
	if o.Rand == nil {
		o.Rand = cryptoRand
	}
	r := &Ring{
		ttl:        o.TTL,
		overlap:    o.Overlap,
		maxPayload: o.MaxPayload,
		maxToken:   base64.RawURLEncoding.EncodedLen(Overhead + o.MaxPayload),
		rand:       o.Rand,
	}
	keys := o.Keys
	if len(keys) == 0 {
		var id [4]byte
		if _, err := io.ReadFull(o.Rand, id[:]); err != nil {
			return nil, errors.New("sealed: drawing a key id: " + err.Error())
		}
		k, err := NewKey(binary.BigEndian.Uint32(id[:]), o.Rand)
		if err != nil {
			return nil, err
		}
		keys = []Key{k}
	}
	set, err := newKeySet(keys)
	if err != nil {
		return nil, err
	}
	r.keys.Store(set)
	return r, nil
}

// newKeySet checks keys (at least one) and returns their set.
func newKeySet(keys []Key) (*keySet, error) {
	if len(keys) == 0 {
		return nil, errors.New("sealed: no key")
	}
	if !keys[0].Until.IsZero() {
		return nil, errors.New("sealed: the sealing key (the first) has a Until")
	}
	set := &keySet{keys: make([]ringKey, 0, len(keys))}
	for i := range keys {
		rk, err := newRingKey(&keys[i])
		if err != nil {
			return nil, err
		}
		if set.find(rk.id) != nil {
			return nil, errors.New("sealed: two keys have id " + strconv.FormatUint(uint64(rk.id), 10))
		}
		set.keys = append(set.keys, rk)
	}
	return set, nil
}

// SetKeys replaces the ring's keys with keys, checked as New checks
// Options.Keys (and there must be one): the first seals from now on,
// every one opens the tokens sealed under it until its Until. Tokens
// being sealed or opened concurrently use the keys before or after, never
// a mix. On error the ring keeps its keys.
func (r *Ring) SetKeys(keys []Key) error {
	set, err := newKeySet(keys)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys.Store(set)
	return nil
}

func newRingKey(k *Key) (ringKey, error) {
	if err := k.check(); err != nil {
		return ringKey{}, err
	}
	aead, err := chacha20poly1305.NewX(k.Secret) // copies the secret
	if err != nil {
		return ringKey{}, err // unreachable: the size was checked
	}
	return ringKey{id: k.ID, aead: aead, until: k.Until}, nil
}

// Rotate makes k the key that seals from now on. The key it replaces goes
// on opening tokens for the ring's Overlap (or until its own Until, if
// sooner); keys whose Until has passed are dropped. k must not have a
// Until nor the id of a key the ring still holds. Tokens being sealed or
// opened concurrently use the keys before or after the rotation, never a
// mix.
func (r *Ring) Rotate(k Key) error {
	if !k.Until.IsZero() {
		return errors.New("sealed: a new sealing key has a Until")
	}
	nk, err := newRingKey(&k)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	old := r.keys.Load()
	set := &keySet{keys: make([]ringKey, 0, len(old.keys)+1)}
	set.keys = append(set.keys, nk)
	for i, ok := range old.keys {
		if ok.id == nk.id {
			return errors.New("sealed: the ring already holds a key with id " + strconv.FormatUint(uint64(nk.id), 10))
		}
		if i == 0 {
			if end := now.Add(r.overlap); ok.until.IsZero() || end.Before(ok.until) {
				ok.until = end
			}
		}
		if ok.until.After(now) {
			set.keys = append(set.keys, ok)
		}
	}
	r.keys.Store(set)
	return nil
}
