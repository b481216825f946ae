package cache

// Default values of Options.
const (
	DefaultMaxEntries = 10_000
	DefaultMaxBytes   = 64 << 20 // 64 MiB
)

// Options bound a Cache. A nil *Options gives the defaults; New copies the
// value, so later changes have no effect.
type Options struct {
	// MaxEntries bounds the number of stored results (default 10,000).
	MaxEntries int
	// MaxBytes bounds the memory the stored results take (default 64
	// MiB). An entry counts its encoded result, its key (the canonical
	// params) and a fixed overhead for its bookkeeping (EntryOverhead).
	MaxBytes int64
	// MaxEntryBytes is the largest entry stored, counted as for MaxBytes
	// (default MaxBytes/16): a larger result is still answered, to every
	// call that shared its fill, but not kept.
	MaxEntryBytes int64
	// Tier, if set, is a second tier shared with other instances
	// (redisstore's CacheTier, say): a local miss asks it before running
	// the handler, and invalidations go through it to every instance.
	// New attaches the Cache to it; a Tier serves one Cache. Nil: this
	// process alone, at no extra cost.
	Tier Tier
}

func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	if c.MaxEntries <= 0 {
		c.MaxEntries = DefaultMaxEntries
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.MaxEntryBytes <= 0 || c.MaxEntryBytes > c.MaxBytes {
		c.MaxEntryBytes = max(c.MaxBytes/16, min(c.MaxBytes, EntryOverhead+4096))
	}
	return c
}
