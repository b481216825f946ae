package client

import (
	"testing"
	"time"
)

func TestBackoff_waitIsFullJitterUnderACappedDoublingBound(t *testing.T) {
	b := Backoff{Base: 10 * time.Millisecond, Max: 100 * time.Millisecond}
	for n, bound := range map[int]time.Duration{1: 10, 2: 20, 3: 40, 4: 80, 5: 100, 6: 100, 70: 100, 1000: 100} {
		bound *= time.Millisecond
		var lo, hi time.Duration = bound, 0
		for range 2000 {
			w := b.wait(n)
			if w < 0 || w > bound {
				t.Fatalf("wait(%d) = %v, want within [0, %v]", n, w, bound)
			}
			lo, hi = min(lo, w), max(hi, w)
		}
		// Full jitter: the waits spread over the whole range.
		if lo > bound/10 || hi < bound*9/10 {
			t.Errorf("wait(%d) ranged over [%v, %v], want most of [0, %v]", n, lo, hi, bound)
		}
	}
	if w := (Backoff{}).wait(3); w != 0 {
		t.Errorf("zero Backoff waits %v", w)
	}
}

func TestOptions_defaults(t *testing.T) {
	o := (&Options{Retry: Retry{Backoff: Backoff{Base: time.Second, Max: time.Millisecond}}, Cache: &CacheOptions{}}).withDefaults()
	if o.sessions != DefaultSessions || o.retry.MaxAttempts != DefaultMaxAttempts ||
		o.retry.Max != time.Second || o.redial != (Backoff{DefaultRedialBase, DefaultRedialMax}) ||
		o.cache.TTL != DefaultCacheTTL || o.cache.MaxEntries != DefaultCacheMaxEntries || o.cache.MaxBytes != DefaultCacheMaxBytes {
		t.Fatalf("defaults: %+v", o)
	}
}
