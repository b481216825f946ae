package router

import "maps"

// table is one immutable version of the method table. Writers build a new
// table from the old one (copy on write) and publish it with an atomic store;
// readers load the pointer and use the map without any lock. Invariant: once
// published, neither a table's map nor any *Entry in it is ever written.
// A nil *table is the empty table.
type table struct {
	m map[string]*Entry
}

func (t *table) lookup(method string) (*Entry, bool) {
	if t == nil {
		return nil, false
	}
	e, ok := t.m[method]
	return e, ok
}

func (t *table) len() int {
	if t == nil {
		return 0
	}
	return len(t.m)
}

// with returns a copy of t in which e.Method maps to e.
func (t *table) with(e *Entry) *table {
	m := make(map[string]*Entry, t.len()+1)
	if t != nil {
		maps.Copy(m, t.m)
	}
	m[e.Method] = e
	return &table{m: m}
}

// without returns a copy of t without method.
func (t *table) without(method string) *table {
	m := make(map[string]*Entry, t.len())
	if t != nil {
		for k, e := range t.m {
			if k != method {
				m[k] = e
			}
		}
	}
	return &table{m: m}
}

// rewrap returns a copy of t whose entries are rebuilt with the middleware mw.
func (t *table) rewrap(mw []Middleware) *table {
	m := make(map[string]*Entry, t.len())
	if t != nil {
		for k, e := range t.m {
			c := *e
			c.wrap(mw)
			m[k] = &c
		}
	}
	return &table{m: m}
}
