package cache

import (
	"hash/maphash"

	"github.com/mcpwire/mcpwire/codec"
)

// A key is the method name and the canonical form of the params
// (codec.Canonicalizer): computed from the validated bytes, with no
// decoding into Go values. It is hashed with a seed of the cache's own, so
// a peer cannot aim for collisions; and a collision costs only a miss,
// since an entry matches on the whole key, never on the hash alone.

// scratch is the memory one key computation needs, pooled per Cache.
type scratch struct {
	canon codec.Canonicalizer
	buf   []byte // the canonical params
}

// maxPooledScratch is the largest canonical buffer kept for reuse, so that
// one huge call does not pin its memory in the pool.
const maxPooledScratch = 64 << 10

func (c *Cache) getScratch() *scratch { return c.scratch.Get().(*scratch) }

func (c *Cache) putScratch(s *scratch) {
	if cap(s.buf) > maxPooledScratch {
		s.buf = nil
	}
	c.scratch.Put(s)
}

// key writes the canonical params into s.buf and returns the key's hash.
// It reports false for params it cannot canonicalise (nesting deeper than
// codec.DefaultMaxDepth): such calls are not cached.
func (c *Cache) key(s *scratch, method string, params []byte) (uint64, bool) {
	s.buf = s.buf[:0]
	if len(params) != 0 { // absent params: the empty key
		var err error
		if s.buf, err = s.canon.Append(s.buf, params); err != nil {
			return 0, false
		}
	}
	return maphash.Bytes(c.seed, s.buf) ^ maphash.String(c.methodSeed, method), true
}
