package middleware_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/principal"
	"github.com/mcpwire/mcpwire/middleware"
)

// fakeStore is a RateStore that answers as told and records its keys.
type fakeStore struct {
	mu   sync.Mutex
	keys []string
	ok   bool
	wait time.Duration
	err  error
}

func (f *fakeStore) Allow(_ context.Context, key string, r rate.Limit, burst int) (bool, time.Duration, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keys = append(f.keys, key)
	return f.ok, f.wait, f.err
}

func (f *fakeStore) set(ok bool, wait time.Duration, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ok, f.wait, f.err = ok, wait, err
}

func (f *fakeStore) asked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.keys...)
}

// TestRateLimit_sharedStore: an HTTP peer's budget is the store's (its
// refusal's retryAfterMs too); a stream session's stays local; a failing
// store gives way to the local limiter, logged once, and is asked again
// after RateStoreRetry.
func TestRateLimit_sharedStore(t *testing.T) {
	store := &fakeStore{ok: true}
	var logs bytes.Buffer
	mw := middleware.RateLimit(rate.Every(time.Minute), 1, &middleware.RateOptions{
		Store: store, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	h := newSession(t, conn.Peer{Transport: "http", Addr: "10.0.0.1:5000"}, nil, mw)
	tcp := newSession(t, conn.Peer{Transport: "tcp", Addr: "10.0.0.1:5001"}, nil, mw)

	for range 3 { // the store allows: past the local burst of 1
		if r := decode(t, h.call(callEcho)); r.code() != 0 {
			t.Fatalf("allowed by the store: %+v", r.Error)
		}
	}
	store.set(false, 1500*time.Microsecond, nil)
	if ms := retryAfter(t, h.call(callEcho)); ms != 2 {
		t.Errorf("retryAfterMs %d, want the store's 1.5 ms rounded up", ms)
	}
	if got := store.asked(); len(got) != 4 || got[0] != "10.0.0.1" {
		t.Errorf("the store was asked for %q, want 4 times the IP", got)
	}
	// A session's key is no string: the local limiter, never the store.
	tcp.call(callEcho)
	if ms := retryAfter(t, tcp.call(callEcho)); ms != 60000 {
		t.Errorf("local retryAfterMs %d", ms)
	}
	if n := len(store.asked()); n != 4 {
		t.Errorf("the store was asked for a session: %d calls", n)
	}

	// The store fails: the local limiter (burst 1) decides, and the store
	// is not asked again before RateStoreRetry.
	store.set(false, 0, errors.New("down"))
	start := time.Now()
	if r := decode(t, h.call(callEcho)); r.code() != 0 {
		t.Fatalf("the local limiter's burst: %+v", r.Error)
	}
	for range 3 {
		if ms := retryAfter(t, h.call(callEcho)); ms < 59000 {
			t.Errorf("local retryAfterMs %d", ms)
		}
	}
	if n := len(store.asked()); n != 5 && time.Since(start) < middleware.RateStoreRetry {
		t.Errorf("a failing store was asked %d times, want once", n-4)
	}
	if n := bytes.Count(logs.Bytes(), []byte("store failed")); n != 1 {
		t.Errorf("the failure was logged %d times:\n%s", n, logs.String())
	}
	store.set(true, 0, nil)
	deadline := time.Now().Add(10 * middleware.RateStoreRetry)
	for decode(t, h.call(callEcho)).code() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the store was not asked again")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !bytes.Contains(logs.Bytes(), []byte("answers again")) {
		t.Errorf("the recovery was not logged:\n%s", logs.String())
	}
}

func TestPrincipalKey(t *testing.T) {
	ctx := context.Background()
	if k := middleware.PrincipalKey(ctx); k != nil {
		t.Errorf("no principal, no session: %v", k)
	}
	if k := middleware.PrincipalKey(principal.With(ctx, "alice")); k != "s:alice" {
		t.Errorf("a string principal: %v", k)
	}
	if k := middleware.PrincipalKey(principal.With(ctx, stringer("iss sub"))); k != "t:iss sub" {
		t.Errorf("a fmt.Stringer principal: %v", k)
	}
}

type stringer string

func (s stringer) String() string { return string(s) }
