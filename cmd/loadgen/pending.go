package main

// pendingSet holds a connection's requests in flight by id. Ids are
// handed out in order (1, 2, 3…), so a ring indexed by id holds them
// without hashing; a request still unanswered when its slot comes round
// again (the server dropped it, or is that far behind) moves to an
// overflow map. Not safe for concurrent use: the worker's lock guards it.
type pendingSet struct {
	ring     []pend // slot id&mask; ring[i].id == 0: empty
	mask     uint64
	overflow map[uint64]pend
	n        int
}

// newPendingSet makes a set with a ring of at least size slots.
func newPendingSet(size int) *pendingSet {
	n := 64
	for n < size {
		n <<= 1
	}
	return &pendingSet{ring: make([]pend, n), mask: uint64(n - 1)}
}

// add puts request p (p.id != 0) in flight.
func (s *pendingSet) add(p pend) {
	slot := &s.ring[p.id&s.mask]
	if slot.id != 0 {
		if s.overflow == nil {
			s.overflow = make(map[uint64]pend)
		}
		s.overflow[slot.id] = *slot
	}
	*slot = p
	s.n++
}

// take removes the request of id and returns it, if it is in flight.
func (s *pendingSet) take(id uint64) (pend, bool) {
	if slot := &s.ring[id&s.mask]; slot.id == id && id != 0 {
		p := *slot
		*slot = pend{}
		s.n--
		return p, true
	}
	if p, ok := s.overflow[id]; ok {
		delete(s.overflow, id)
		s.n--
		return p, true
	}
	return pend{}, false
}

// len is how many requests are in flight.
func (s *pendingSet) len() int { return s.n }

// clear forgets them all.
func (s *pendingSet) clear() {
	clear(s.ring)
	clear(s.overflow)
	s.n = 0
}
