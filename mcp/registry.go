package mcp

import (
	"encoding/base64"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/codec"
)

// A registry holds the items of one feature (tools, resources, resource
// templates, prompts) by key. Writers take a mutex and mark the snapshot
// stale; readers load an immutable snapshot with one atomic load, and the
// first reader after a change rebuilds it (sorted by key). So adding many
// items costs one rebuild, and a lookup or a list under traffic never
// waits for a writer that is not rebuilding.
//
// Lists are paged by key: a cursor is the key of the last item of the
// previous page, opaque to the client (base64url with a prefix), so paging
// stays consistent while items come and go. Each item keeps its JSON,
// encoded once per protocol level when it was added (levels that encode
// alike share the bytes), and a page is the concatenation of its items'
// JSON for the session's level; the first page of a snapshot is kept once
// built, per level.

// listed is an item of a registry.
type listed interface {
	comparable
	listKey() string
	listJSON(l level) []byte // the item as listed to a session of level l, encoded
}

type registry[E listed] struct {
	onChange func()

	mu    sync.Mutex
	items map[string]E // under mu

	snap atomic.Pointer[snapshot[E]] // nil: stale
}

type snapshot[E listed] struct {
	byKey map[string]E
	keys  []string                          // sorted
	items []E                               // in key order
	first [numLevels]atomic.Pointer[[]byte] // the first page per level, once built
}

func (r *registry[E]) init(onChange func()) {
	r.items = map[string]E{}
	r.onChange = onChange
}

// put adds or replaces items.
func (r *registry[E]) put(es ...E) {
	r.mu.Lock()
	for _, e := range es {
		r.items[e.listKey()] = e
	}
	r.snap.Store(nil)
	r.mu.Unlock()
	r.onChange()
}

// remove deletes the items with these keys and reports how many there were.
func (r *registry[E]) remove(keys ...string) int {
	n := 0
	r.mu.Lock()
	for _, k := range keys {
		if _, ok := r.items[k]; ok {
			delete(r.items, k)
			n++
		}
	}
	if n > 0 {
		r.snap.Store(nil)
	}
	r.mu.Unlock()
	if n > 0 {
		r.onChange()
	}
	return n
}

// load returns the current snapshot, rebuilding it if stale.
func (r *registry[E]) load() *snapshot[E] {
	if s := r.snap.Load(); s != nil {
		return s
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.snap.Load(); s != nil {
		return s
	}
	s := &snapshot[E]{byKey: maps.Clone(r.items)}
	s.keys = slices.Sorted(maps.Keys(s.byKey))
	s.items = make([]E, len(s.keys))
	for i, k := range s.keys {
		s.items[i] = s.byKey[k]
	}
	r.snap.Store(s)
	return s
}

// get finds an item by key.
func (r *registry[E]) get(key string) (E, bool) {
	e, ok := r.load().byKey[key]
	return e, ok
}

// len returns how many items there are.
func (r *registry[E]) len() int { return len(r.load().keys) }

const cursorPrefix = "k:"

func encodeCursor(key string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + key))
}

// decodeCursor returns the key a cursor stands for.
func decodeCursor(c string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || !strings.HasPrefix(string(b), cursorPrefix) {
		return "", false
	}
	return string(b[len(cursorPrefix):]), true
}

// errInvalidCursor answers a list request whose cursor this server did not
// make.
var errInvalidCursor = codec.NewError(codec.CodeInvalidParams, "Invalid params: invalid cursor")

// page answers a list request: {"<member>":[…],"nextCursor":"…"} with at
// most size items after cursor ("": from the start), as level l lists them.
func (r *registry[E]) page(member, cursor string, size int, l level) (codec.Raw, error) {
	s := r.load()
	start := 0
	if cursor != "" {
		after, ok := decodeCursor(cursor)
		if !ok {
			return nil, errInvalidCursor
		}
		start = sort.SearchStrings(s.keys, after)
		if start < len(s.keys) && s.keys[start] == after {
			start++
		}
	} else if p := s.first[l].Load(); p != nil {
		return *p, nil
	}
	end := min(start+size, len(s.items))
	n := 16 + len(member)
	for _, e := range s.items[start:end] {
		n += len(e.listJSON(l)) + 1
	}
	b := make([]byte, 0, n+64)
	b = append(append(append(b, `{"`...), member...), `":[`...)
	for i, e := range s.items[start:end] {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e.listJSON(l)...)
	}
	b = append(b, ']')
	if end < len(s.items) {
		b = append(b, `,"nextCursor":"`...)
		b = append(b, encodeCursor(s.keys[end-1])...)
		b = append(b, '"')
	}
	b = append(b, '}')
	if cursor == "" {
		s.first[l].Store(&b)
	}
	return b, nil
}
