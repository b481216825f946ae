package mcp

import (
	"strings"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/codec"
)

// listCache keeps, in a session of a stateless version, the results of
// list requests the server marked fresh for a while (ttlMs > 0, as the
// specification's caching utility says): the same request (method and
// params) is answered from it while fresh. The list_changed notification
// of a list makes its results stale at once. The session is one
// authorization context, so a "private" cacheScope is kept as a
// "public" one is. Results of retried (input_required) requests are not
// kept. At most maxCachedLists results are kept.
type listCache struct {
	mu  sync.Mutex
	gen uint64 // moved on by every invalidation
	m   map[string]cachedList
}

// cachedList is a result kept, fresh until fresh.
type cachedList struct {
	raw   []byte
	fresh time.Time
}

// maxCachedLists bounds the results a session keeps (pages of lists).
const maxCachedLists = 256

// cacheableLists maps the list requests a session caches to the
// list_changed notification that makes them stale.
var cacheableLists = map[string]string{
	"tools/list":               "notifications/tools/list_changed",
	"prompts/list":             "notifications/prompts/list_changed",
	"resources/list":           "notifications/resources/list_changed",
	"resources/templates/list": "notifications/resources/list_changed",
}

// cacheKey is the key of a request of method with params (without the
// session's _meta): a list request's, or "" for a request not cached.
func cacheKey(method string, params []byte) string {
	if _, ok := cacheableLists[method]; !ok {
		return ""
	}
	return method + "\x00" + string(params)
}

// get returns a copy of the fresh result kept under key, and the
// generation a result of a request sent now is to be put with.
func (c *listCache) get(key string) ([]byte, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if ok && time.Now().Before(e.fresh) {
		return append([]byte(nil), e.raw...), c.gen
	}
	return nil, c.gen
}

// put keeps a copy of raw, a complete result, under key for its ttlMs,
// unless the list changed since its request was sent (gen).
func (c *listCache) put(key string, gen uint64, raw []byte) {
	ttl, ok := codec.Member(raw, "ttlMs")
	var ms int64
	if !ok || codec.Unmarshal(ttl, &ms) != nil || ms <= 0 {
		return
	}
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.m == nil {
		c.m = map[string]cachedList{}
	}
	if len(c.m) >= maxCachedLists {
		for k, e := range c.m {
			if !now.Before(e.fresh) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= maxCachedLists {
			return
		}
	}
	c.m[key] = cachedList{raw: append([]byte(nil), raw...), fresh: now.Add(time.Duration(ms) * time.Millisecond)}
}

// changed makes the results kept for the lists notification names stale.
func (c *listCache) changed(notification string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for k := range c.m {
		method, _, _ := strings.Cut(k, "\x00")
		if cacheableLists[method] == notification {
			delete(c.m, k)
		}
	}
}
