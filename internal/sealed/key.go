package sealed

import (
	"errors"
	"io"
	"strconv"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// KeySize is the length in bytes of a [Key]'s Secret.
const KeySize = chacha20poly1305.KeySize

// Key is a secret key of a [Ring].
type Key struct {
	// ID names the key in the tokens it seals; it is not secret. The
	// keys of one ring have distinct ids.
	ID uint32
	// Secret is the key itself: KeySize bytes, drawn from a
	// cryptographically secure source (crypto/rand), shared only by the
	// instances of one server. The ring keeps a copy.
	Secret []byte
	// Until, if not zero, is the instant from which the key no longer
	// opens tokens. The key that seals (the first of Options.Keys) has
	// none.
	Until time.Time
}

// NewKey returns a key with id and a secret of KeySize bytes read from
// rand (nil: crypto/rand).
func NewKey(id uint32, rand io.Reader) (Key, error) {
	if rand == nil {
		rand = cryptoRand
	}
	k := Key{ID: id, Secret: make([]byte, KeySize)}
	if _, err := io.ReadFull(rand, k.Secret); err != nil {
		return Key{}, errors.New("sealed: drawing a key: " + err.Error())
	}
	return k, nil
}

// check returns an error saying what is wrong with k, never its secret.
func (k *Key) check() error {
	if len(k.Secret) != KeySize {
		return errors.New("sealed: key " + strconv.FormatUint(uint64(k.ID), 10) +
			": secret is " + strconv.Itoa(len(k.Secret)) + " bytes, want " + strconv.Itoa(KeySize))
	}
	return nil
}
