package pool

import "testing"

type nop struct{}

func (nop) Run() {}

// A queue that is never empty (tasks always waiting while one is taken)
// reuses the room of taken tasks instead of growing: an unbounded pool's
// queue stays as large as the most tasks that ever waited at once.
func TestRing_neverEmptyStaysSmall(t *testing.T) {
	var r ring
	for range 8 {
		r.push(nop{})
	}
	for range 10000 { // take one, queue one: never empty
		if _, ok := r.pop(); !ok {
			t.Fatal("empty")
		}
		r.push(nop{})
	}
	if r.len() != 8 || len(r.buf) > 32 {
		t.Errorf("%d tasks waiting in a queue of room %d, want 8 in a small one", r.len(), len(r.buf))
	}
}
