package session

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// fake is a session of a Registry[int, *fake]. By default it ends (is
// removed) as soon as it is shut down or closed; its hooks change that.
type fake struct {
	r   *Registry[int, *fake]
	key int
	// shutdown, if set, is its Shutdown; otherwise it ends at once, or
	// as late says.
	shutdown func(f *fake, ctx context.Context) error
	// late, if set, is told of a Shutdown or Close in place of ending at
	// once: it ends the session itself.
	late func(f *fake)

	shutdowns, closes atomic.Int32
}

func (f *fake) Shutdown(ctx context.Context) error {
	f.shutdowns.Add(1)
	if f.shutdown != nil {
		return f.shutdown(f, ctx)
	}
	f.stop()
	return nil
}

func (f *fake) Close() error {
	f.closes.Add(1)
	f.stop()
	return nil
}

// stop ends the session, at once or as late says.
func (f *fake) stop() {
	if f.late != nil {
		f.late(f)
		return
	}
	f.end()
}

func (f *fake) end() { f.r.Remove(f.key, f) }

func add(t *testing.T, r *Registry[int, *fake], key int, f *fake) *fake {
	t.Helper()
	f.r, f.key = r, key
	if err := r.Add(key, f, nil); err != nil {
		t.Fatalf("Add(%d): %v", key, err)
	}
	return f
}

func TestRegistry_addGetRemoveLenAll(t *testing.T) {
	var r Registry[int, *fake]
	a := add(t, &r, 1, &fake{})
	b := add(t, &r, 2, &fake{})
	c := add(t, &r, 3, &fake{})
	if n := r.Len(); n != 3 {
		t.Fatalf("Len = %d, want 3", n)
	}
	if got, ok := r.Get(2); !ok || got != b {
		t.Errorf("Get(2) = %p, %v; want %p", got, ok, b)
	}
	if _, ok := r.Get(4); ok {
		t.Error("Get(4) found a session")
	}
	if err := r.Add(1, &fake{}, nil); !errors.Is(err, ErrDuplicate) {
		t.Errorf("Add of a key in use: %v, want ErrDuplicate", err)
	}
	if r.Remove(1, b) {
		t.Error("Remove(1, b) removed a, which key 1 holds")
	}
	// The loop removes what it sees, and adds one it must not see.
	seen := map[*fake]bool{}
	for s := range r.All() {
		seen[s] = true
		if !r.Remove(s.key, s) {
			t.Errorf("Remove(%d) inside the loop failed", s.key)
		}
		if s == a {
			add(t, &r, 9, &fake{})
		}
	}
	if len(seen) != 3 || !seen[a] || !seen[b] || !seen[c] {
		t.Errorf("All yielded %d sessions, want a, b and c", len(seen))
	}
	if n := r.Len(); n != 1 {
		t.Errorf("Len after removing all three = %d, want 1 (the one added in the loop)", n)
	}
	if r.Remove(1, a) {
		t.Error("a second Remove(1, a) reported a removal")
	}
	for range r.All() {
		break // stopping early is allowed
	}
}

// ends are the two ways to end a registry.
var ends = []struct {
	name string
	do   func(r *Registry[int, *fake]) error
}{
	{"Shutdown", func(r *Registry[int, *fake]) error { return r.Shutdown(context.Background()) }},
	{"Close", func(r *Registry[int, *fake]) error { return r.Close() }},
}

func TestRegistry_refusesOnceClosed(t *testing.T) {
	for _, end := range ends {
		t.Run(end.name, func(t *testing.T) {
			var r Registry[int, *fake]
			s := add(t, &r, 1, &fake{})
			if err := end.do(&r); err != nil {
				t.Fatalf("%s: %v", end.name, err)
			}
			if s.shutdowns.Load()+s.closes.Load() != 1 {
				t.Errorf("the live session was shut down %d times and closed %d times, want one of them once", s.shutdowns.Load(), s.closes.Load())
			}
			if !r.Closed() || r.Len() != 0 {
				t.Errorf("Closed = %v, Len = %d; want true, 0", r.Closed(), r.Len())
			}
			if err := r.Add(2, &fake{r: &r, key: 2}, nil); !errors.Is(err, ErrClosed) {
				t.Errorf("Add after %s: %v, want ErrClosed", end.name, err)
			}
			if _, err := r.Reserve(nil); !errors.Is(err, ErrClosed) {
				t.Errorf("Reserve after %s: %v, want ErrClosed", end.name, err)
			}
			// Ending it again is harmless.
			if err := r.Shutdown(context.Background()); err != nil {
				t.Errorf("Shutdown again: %v", err)
			}
			if err := r.Close(); err != nil {
				t.Errorf("Close again: %v", err)
			}
		})
	}
}

// Shutdown and Close call every session's Shutdown or Close at once, and
// return only when the last session has ended: here session i's call
// takes i seconds, and the session ends i seconds later still, on a
// goroutine of its own (as a connection's end is reported). In parallel,
// the last ends at 6s; one at a time, the calls alone would take 6s.
func TestRegistry_endsSessionsInParallelAndWaits(t *testing.T) {
	for _, end := range ends {
		t.Run(end.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var r Registry[int, *fake]
				start := time.Now()
				var told sync.WaitGroup
				told.Add(3)
				late := func(f *fake) {
					if d := time.Since(start); d != 0 {
						t.Errorf("session %d told to end after %v, want at once", f.key, d)
					}
					told.Done()
					time.Sleep(time.Duration(f.key) * time.Second)
					go func() {
						time.Sleep(time.Duration(f.key) * time.Second)
						f.end()
					}()
				}
				for i := 1; i <= 3; i++ {
					add(t, &r, i, &fake{late: late})
				}
				if err := end.do(&r); err != nil {
					t.Errorf("%s: %v", end.name, err)
				}
				told.Wait()
				if d := time.Since(start); d != 6*time.Second {
					t.Errorf("%s returned after %v, want 6s (when the last session ended)", end.name, d)
				}
				if r.Len() != 0 {
					t.Errorf("Len after %s = %d", end.name, r.Len())
				}
			})
		})
	}
}

// A session that ignores its Shutdown (it neither ends nor returns)
// holds Shutdown only until ctx is done; Close ends it after.
func TestRegistry_shutdownHonoursCtx(t *testing.T) {
	for _, blocks := range []bool{false, true} {
		name := "returns and goes on"
		if blocks {
			name = "blocks"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var r Registry[int, *fake]
				release := make(chan struct{})
				defer close(release)
				ignore := func(*fake, context.Context) error {
					if blocks {
						<-release
					}
					return nil
				}
				good := add(t, &r, 1, &fake{})
				stuck := add(t, &r, 2, &fake{shutdown: ignore})
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				defer cancel()
				start := time.Now()
				err := r.Shutdown(ctx)
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("Shutdown = %v, want DeadlineExceeded", err)
				}
				if d := time.Since(start); d != time.Second {
					t.Errorf("Shutdown returned after %v, want 1s (ctx's deadline)", d)
				}
				if good.shutdowns.Load() != 1 || stuck.shutdowns.Load() != 1 {
					t.Errorf("Shutdown calls: %d and %d, want 1 each", good.shutdowns.Load(), stuck.shutdowns.Load())
				}
				if _, ok := r.Get(2); !ok || r.Len() != 1 {
					t.Errorf("the stuck session is gone (Len %d): nothing removed it", r.Len())
				}
				if err := r.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
				if stuck.closes.Load() != 1 || r.Len() != 0 {
					t.Errorf("after Close: closes %d, Len %d; want 1, 0", stuck.closes.Load(), r.Len())
				}
			})
		})
	}
}

// Sessions added while Shutdown runs are either refused or shut down:
// none is left live behind it.
func TestRegistry_addDuringShutdown(t *testing.T) {
	var r Registry[int, *fake]
	const n = 200
	sessions := make([]*fake, n)
	added := make([]bool, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			f := &fake{r: &r, key: i}
			sessions[i] = f
			err := r.Add(i, f, nil)
			switch {
			case err == nil:
				added[i] = true
			case !errors.Is(err, ErrClosed):
				t.Errorf("Add(%d): %v", i, err)
			}
		})
	}
	close(start)
	if err := r.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	wg.Wait()
	if r.Len() != 0 {
		t.Errorf("Len after Shutdown = %d, want 0", r.Len())
	}
	for i, f := range sessions {
		if added[i] && f.shutdowns.Load() != 1 {
			t.Errorf("session %d was added and not shut down", i)
		}
		if !added[i] && f.shutdowns.Load() != 0 {
			t.Errorf("session %d was refused and shut down", i)
		}
	}
}
