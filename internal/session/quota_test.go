package session

import (
	"context"
	"errors"
	"testing"
)

func TestRegistry_limits(t *testing.T) {
	r := Registry[int, *fake]{Max: 3, MaxPerGroup: 2}
	addIn := func(key int, group string) error {
		return r.Add(key, &fake{r: &r, key: key}, group)
	}
	for i, g := range []string{"alice", "alice", "bob"} {
		if err := addIn(i, g); err != nil {
			t.Fatalf("Add(%d, %s): %v", i, g, err)
		}
	}
	var le *LimitError
	if err := addIn(10, "alice"); !errors.As(err, &le) || le.PerGroup != false || le.Max != 3 {
		t.Errorf("fourth session: %v, want the limit on all sessions (3) first", err)
	}
	s, _ := r.Get(2) // bob's
	s.end()
	if err := addIn(11, "alice"); !errors.As(err, &le) || !le.PerGroup || le.Max != 2 {
		t.Errorf("third of alice: %v, want the limit of a group (2)", err)
	}
	if err := addIn(12, "carol"); err != nil {
		t.Errorf("carol, once bob's was removed: %v", err)
	}
	if err := addIn(12, "dave"); !errors.As(err, &le) {
		t.Errorf("a fourth, under a key in use: %v, want the limit first", err)
	}
	if total, alice := r.quota().Len("alice"); total != 3 || alice != 2 {
		t.Errorf("counted %d in all, %d of alice; want 3, 2", total, alice)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if total, _ := r.quota().Len(nil); total != 0 {
		t.Errorf("%d slots still held after Close", total)
	}
}

// A slot reserved counts before its session can be found; a reservation
// that comes to nothing is given back by its caller.
func TestRegistry_reserve(t *testing.T) {
	r := Registry[string, *fake]{Max: 1}
	slot, err := r.Reserve("g")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reserve("g"); err == nil {
		t.Error("a second reservation passed Max")
	}
	if r.Len() != 0 {
		t.Errorf("Len = %d with a reservation only, want 0", r.Len())
	}
	f := &fake{}
	if err := r.AddReserved("a", f, slot); err != nil {
		t.Fatal(err)
	}
	if err := r.AddReserved("a", &fake{}, &Slot{}); !errors.Is(err, ErrDuplicate) {
		t.Errorf("AddReserved under a key in use: %v", err)
	}
	r.Remove("a", f)
	slot, err = r.Reserve("g")
	if err != nil {
		t.Fatalf("Remove did not give the slot back: %v", err)
	}
	slot.Release()
	slot.Release() // once only
	if total, _ := r.quota().Len("g"); total != 0 {
		t.Errorf("%d slots held after Release, want 0", total)
	}
	// A reservation made before Shutdown is not added after it.
	slot, err = r.Reserve("g")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.AddReserved("b", &fake{}, slot); !errors.Is(err, ErrClosed) {
		t.Errorf("AddReserved after Shutdown: %v, want ErrClosed", err)
	}
	slot.Release()
}

// Registries that share a Quota are bounded together, each by its own
// limits.
func TestRegistry_sharedQuota(t *testing.T) {
	var q Quota
	a := Registry[int, *fake]{Max: 2, Quota: &q}
	b := Registry[int, *fake]{Max: 3, Quota: &q}
	add(t, &a, 1, &fake{})
	add(t, &b, 1, &fake{})
	if err := a.Add(2, &fake{r: &a, key: 2}, nil); err == nil {
		t.Error("a holds one, b one: a third passed a's Max of 2")
	}
	add(t, &b, 2, &fake{})
	if total, _ := q.Len(nil); total != 3 {
		t.Errorf("the quota counts %d, want 3", total)
	}
	if err := errors.Join(a.Close(), b.Close()); err != nil {
		t.Fatal(err)
	}
	if total, _ := q.Len(nil); total != 0 {
		t.Errorf("the quota counts %d after both closed, want 0", total)
	}
}

func TestLimitError_message(t *testing.T) {
	for _, tc := range []struct {
		e    LimitError
		want string
	}{
		{LimitError{Max: 5}, "session: too many sessions (limit 5)"},
		{LimitError{PerGroup: true, Max: 2}, "session: too many sessions of one group (limit 2)"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}
