package session

import (
	"context"
	"errors"
	"iter"
	"sync"
)

// Session is what a Registry holds: a session that can be ended
// gracefully or at once. Both calls may be made while the session is
// ending of its own accord, and more than once.
type Session interface {
	// Shutdown ends the session gracefully: it takes no new work, and
	// lets the work it has finish until ctx is done.
	Shutdown(ctx context.Context) error
	// Close ends the session at once.
	Close() error
}

// Errors of Registry.
var (
	// ErrClosed refuses a session once Shutdown or Close has begun.
	ErrClosed = errors.New("session: registry closed")
	// ErrDuplicate refuses a session under a key that another holds.
	ErrDuplicate = errors.New("session: key in use")
)

// Registry holds the live sessions of a server by key (a session may be
// its own key). Its zero value is ready, with no limits. Safe for
// concurrent use.
//
// Every session added must be removed by its owner once it has ended
// (Remove): Shutdown and Close wait for that.
type Registry[K comparable, S interface {
	comparable
	Session
}] struct {
	// Max bounds the sessions counted in Quota, in all (<= 0: no bound).
	// Set it before the first Add or Reserve.
	Max int
	// MaxPerGroup bounds the sessions of one group counted in Quota
	// (<= 0: no bound). Set it before the first Add or Reserve.
	MaxPerGroup int
	// Quota, if set, is where sessions are counted for Max and
	// MaxPerGroup: registries sharing one are bounded together (nil: the
	// registry's own). Set it before the first Add or Reserve.
	Quota *Quota

	own     Quota
	mu      sync.Mutex
	live    map[K]entry[S]
	closed  bool
	drained chan struct{} // made when closed; closed once live is empty
}

type entry[S any] struct {
	s    S
	slot *Slot
}

func (r *Registry[K, S]) quota() *Quota {
	if r.Quota != nil {
		return r.Quota
	}
	return &r.own
}

// Reserve counts a session to come, of group, against the limits, before
// it is added (AddReserved): a session that must not be found before it
// is ready, but must be refused early past a limit. It fails with
// ErrClosed once Shutdown or Close has begun, or a *LimitError. The caller
// releases the slot if the session is not added after all. A registry
// with neither limits nor a shared Quota counts nothing: its slot is nil
// (releasing it does nothing), so that adding a session takes one lock
// and no allocation.
func (r *Registry[K, S]) Reserve(group any) (*Slot, error) {
	if r.Closed() {
		return nil, ErrClosed
	}
	if r.Quota == nil && r.Max <= 0 && r.MaxPerGroup <= 0 {
		return nil, nil
	}
	return r.quota().Acquire(group, r.Max, r.MaxPerGroup)
}

// Add adds s under key, counted in group for the limits. It fails, adding
// nothing, with ErrClosed once Shutdown or Close has begun, ErrDuplicate
// when key holds a session, or a *LimitError.
func (r *Registry[K, S]) Add(key K, s S, group any) error {
	slot, err := r.Reserve(group)
	if err != nil {
		return err
	}
	if err := r.AddReserved(key, s, slot); err != nil {
		slot.Release()
		return err
	}
	return nil
}

// AddReserved adds s under key, in the slot Reserve gave: the registry
// releases the slot when s is removed. It fails with ErrClosed once
// Shutdown or Close has begun, or ErrDuplicate when key holds a session;
// the slot is then still the caller's to release.
func (r *Registry[K, S]) AddReserved(key K, s S, slot *Slot) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	if _, ok := r.live[key]; ok {
		return ErrDuplicate
	}
	if r.live == nil {
		r.live = map[K]entry[S]{}
	}
	r.live[key] = entry[S]{s, slot}
	return nil
}

// Get returns the session under key.
func (r *Registry[K, S]) Get(key K) (S, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.live[key]
	return e.s, ok
}

// Remove removes the session under key if it is s, releasing its slot,
// and reports whether it did. Removing the last session wakes a Shutdown
// or Close that waits.
func (r *Registry[K, S]) Remove(key K, s S) bool {
	r.mu.Lock()
	e, ok := r.live[key]
	if !ok || e.s != s {
		r.mu.Unlock()
		return false
	}
	delete(r.live, key)
	if r.drained != nil && len(r.live) == 0 {
		close(r.drained)
	}
	r.mu.Unlock()
	e.slot.Release()
	return true
}

// Len returns the number of sessions held.
func (r *Registry[K, S]) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.live)
}

// Closed reports whether Shutdown or Close has begun.
func (r *Registry[K, S]) Closed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

// All returns the sessions held, as a snapshot taken when the iteration
// starts, in no particular order: a session may end meanwhile, and the
// loop may remove sessions or add others.
func (r *Registry[K, S]) All() iter.Seq[S] {
	return func(yield func(S) bool) {
		for _, s := range r.snapshot() {
			if !yield(s) {
				return
			}
		}
	}
}

func (r *Registry[K, S]) snapshot() []S {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]S, 0, len(r.live))
	for _, e := range r.live {
		out = append(out, e.s)
	}
	return out
}

// stop refuses new sessions from now on, and returns the live ones and a
// channel closed once none is left.
func (r *Registry[K, S]) stop() ([]S, <-chan struct{}) {
	r.mu.Lock()
	r.closed = true
	if r.drained == nil {
		r.drained = make(chan struct{})
		if len(r.live) == 0 {
			close(r.drained)
		}
	}
	r.mu.Unlock()
	return r.snapshot(), r.drained
}

// Shutdown refuses new sessions from now on, shuts every session held
// down in parallel (Session.Shutdown, with ctx), and waits until their
// owners have removed them all, or ctx is done: it then returns ctx.Err()
// beside the sessions' errors. A session whose Shutdown ignores ctx may
// still be shutting down when it returns.
func (r *Registry[K, S]) Shutdown(ctx context.Context) error {
	all, drained := r.stop()
	results := make(chan error, len(all)) // room for all: no call waits
	for _, s := range all {
		go func() { results <- s.Shutdown(ctx) }()
	}
	var errs []error
	for range all {
		select {
		case err := <-results:
			errs = append(errs, err)
		case <-ctx.Done():
			return errors.Join(append(errs, ctx.Err())...)
		}
	}
	select {
	case <-drained:
	case <-ctx.Done():
		errs = append(errs, ctx.Err())
	}
	return errors.Join(errs...)
}

// Close refuses new sessions from now on, closes every session held at
// once (Session.Close, in parallel), and waits until their owners have
// removed them all.
func (r *Registry[K, S]) Close() error {
	all, drained := r.stop()
	errs := make([]error, len(all))
	var wg sync.WaitGroup
	for i, s := range all {
		wg.Go(func() { errs[i] = s.Close() })
	}
	wg.Wait()
	<-drained
	return errors.Join(errs...)
}
