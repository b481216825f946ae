package cache

import (
	"bytes"
	"math"
	"sync/atomic"
	"unsafe"
)

// entry is one stored result. Its key and result never change once it is
// published in the index, so a reader may use them after letting go of the
// index's lock; freq is the one field readers write. The queue links (q,
// prev, next) belong to the policy and are guarded by Cache.mu.
type entry struct {
	hash    uint64
	method  string
	params  []byte // canonical params: the key with method
	result  []byte // encoded result, answered verbatim
	expires int64  // on the cache's clock; never when noExpiry
	size    int64  // what the entry counts toward MaxBytes

	freq atomic.Uint32 // hits since the policy last looked, capped at maxFreq

	q          *queue // nil once unlinked
	prev, next *entry // prev is towards the head (newest)
}

// EntryOverhead is what an entry counts toward Options.MaxBytes besides
// its result and key: its record and its slot in the index.
const EntryOverhead = int64(unsafe.Sizeof(entry{})) + 32

const (
	noExpiry = math.MaxInt64
	maxFreq  = 3 // S3-FIFO's two-bit counter
)

// matches reports whether e is the entry of method and params (canonical).
func (e *entry) matches(method string, params []byte) bool {
	return e.method == method && bytes.Equal(e.params, params)
}

// touch records a hit for the policy: cheap, and no write once saturated.
func (e *entry) touch() {
	if f := e.freq.Load(); f < maxFreq {
		e.freq.CompareAndSwap(f, f+1)
	}
}

func (e *entry) expired(now int64) bool { return e.expires != noExpiry && now >= e.expires }
