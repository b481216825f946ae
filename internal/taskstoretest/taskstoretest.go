// Package taskstoretest is the contract every mcp.TaskStore passes, as
// one table of tests: mcp's memory store and redisstore's run it.
package taskstoretest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
)

// Run runs the contract on stores made by open, a new empty one each
// time.
func Run(t *testing.T, open func(t *testing.T) mcp.TaskStore) {
	for _, c := range contract {
		t.Run(c.name, func(t *testing.T) { c.f(t, open(t)) })
	}
}

var ctx = context.Background()

// hour is a lifetime no test outlives.
func hour() time.Time { return time.Now().Add(time.Hour) }

var contract = []struct {
	name string
	f    func(t *testing.T, st mcp.TaskStore)
}{
	{"getsWhatWasCreated", func(t *testing.T, st mcp.TaskStore) {
		data := []byte(`{"a":1}`)
		must(t, st.Create(ctx, "s", "t1", data, hour(), 10))
		data[0] = 'x' // the store keeps its own copy
		got, err := st.Get(ctx, "s", "t1")
		if err != nil || string(got) != `{"a":1}` {
			t.Fatalf("Get = %q, %v", got, err)
		}
		for _, k := range [][2]string{{"s", "t2"}, {"other", "t1"}, {"", "t1"}} {
			if _, err := st.Get(ctx, k[0], k[1]); !errors.Is(err, mcp.ErrTaskNotFound) {
				t.Errorf("Get(%q, %q) = %v, want ErrTaskNotFound", k[0], k[1], err)
			}
		}
	}},
	{"keepsScopesApartWhateverTheirNames", func(t *testing.T, st mcp.TaskStore) {
		must(t, st.Create(ctx, "a:b", "x", []byte("ab"), hour(), 10))
		must(t, st.Create(ctx, "a", "b:x", []byte("a"), hour(), 10))
		for k, want := range map[[2]string]string{{"a:b", "x"}: "ab", {"a", "b:x"}: "a"} {
			if got, err := st.Get(ctx, k[0], k[1]); err != nil || string(got) != want {
				t.Errorf("Get(%q, %q) = %q, %v; want %q", k[0], k[1], got, err, want)
			}
		}
		ids, _, _, err := st.List(ctx, "a", "", 10)
		if err != nil || !slices.Equal(ids, []string{"b:x"}) {
			t.Errorf("List(a) = %v, %v", ids, err)
		}
	}},
	{"refusesPastTheLimitUntilATaskExpires", func(t *testing.T, st mcp.TaskStore) {
		must(t, st.Create(ctx, "s", "short", []byte("1"), time.Now().Add(150*time.Millisecond), 2))
		must(t, st.Create(ctx, "s", "long", []byte("2"), hour(), 2))
		if err := st.Create(ctx, "s", "third", []byte("3"), hour(), 2); !errors.Is(err, mcp.ErrTaskLimit) {
			t.Fatalf("Create past the limit = %v, want ErrTaskLimit", err)
		}
		must(t, st.Create(ctx, "other", "t", []byte("o"), hour(), 2)) // per scope
		eventually(t, func() bool { return st.Create(ctx, "s", "third", []byte("3"), hour(), 2) == nil })
		if err := st.Create(ctx, "s", "fourth", []byte("4"), hour(), 2); !errors.Is(err, mcp.ErrTaskLimit) {
			t.Errorf("Create past the limit again = %v", err)
		}
	}},
	{"forgetsATaskAtItsExpiry", func(t *testing.T, st mcp.TaskStore) {
		must(t, st.Create(ctx, "s", "t", []byte("1"), time.Now().Add(150*time.Millisecond), 10))
		must(t, st.Update(ctx, "s", "t", func([]byte) ([]byte, error) { return []byte("2"), nil }))
		eventually(t, func() bool {
			_, err := st.Get(ctx, "s", "t")
			return errors.Is(err, mcp.ErrTaskNotFound)
		})
		ids, _, more, err := st.List(ctx, "s", "", 10)
		if err != nil || len(ids) != 0 || more {
			t.Errorf("List after expiry = %v, %v, %v", ids, more, err)
		}
		if err := st.Update(ctx, "s", "t", func(b []byte) ([]byte, error) { return b, nil }); !errors.Is(err, mcp.ErrTaskNotFound) {
			t.Errorf("Update after expiry = %v", err)
		}
	}},
	{"updatesAtomically", func(t *testing.T, st mcp.TaskStore) {
		must(t, st.Create(ctx, "s", "t", []byte("0"), hour(), 10))
		const workers, each = 4, 10
		var wg sync.WaitGroup
		errs := make(chan error, workers*each)
		for range workers {
			wg.Go(func() {
				for range each {
					errs <- st.Update(ctx, "s", "t", func(old []byte) ([]byte, error) {
						var n int
						_, err := fmt.Sscan(string(old), &n)
						return fmt.Append(nil, n+1), err
					})
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			must(t, err)
		}
		if got, err := st.Get(ctx, "s", "t"); err != nil || string(got) != fmt.Sprint(workers*each) {
			t.Errorf("after %d increments: %q, %v", workers*each, got, err)
		}
	}},
	{"leavesARecordAsItWasWhenFFails", func(t *testing.T, st mcp.TaskStore) {
		must(t, st.Create(ctx, "s", "t", []byte("1"), hour(), 10))
		boom := errors.New("boom")
		if err := st.Update(ctx, "s", "t", func([]byte) ([]byte, error) { return []byte("2"), boom }); !errors.Is(err, boom) {
			t.Errorf("Update = %v, want f's error", err)
		}
		if got, _ := st.Get(ctx, "s", "t"); string(got) != "1" {
			t.Errorf("after a failed Update: %q", got)
		}
		if err := st.Update(ctx, "s", "none", func(b []byte) ([]byte, error) { return b, nil }); !errors.Is(err, mcp.ErrTaskNotFound) {
			t.Errorf("Update of an unknown task = %v", err)
		}
	}},
	{"listsPagesInIDOrder", func(t *testing.T, st mcp.TaskStore) {
		ids := []string{"e", "a", "c", "b", "d"}
		for _, id := range ids {
			must(t, st.Create(ctx, "s", id, []byte("v"+id), hour(), 10))
		}
		must(t, st.Create(ctx, "s", "gone", []byte("x"), time.Now().Add(100*time.Millisecond), 10))
		eventually(t, func() bool {
			_, err := st.Get(ctx, "s", "gone")
			return errors.Is(err, mcp.ErrTaskNotFound)
		})
		var got []string
		after := ""
		for pages := 0; ; pages++ {
			page, data, more, err := st.List(ctx, "s", after, 2)
			must(t, err)
			for i, id := range page {
				if string(data[i]) != "v"+id {
					t.Errorf("List: %s holds %q", id, data[i])
				}
			}
			got = append(got, page...)
			if !more || pages > 5 {
				break
			}
			after = page[len(page)-1]
		}
		if !slices.Equal(got, []string{"a", "b", "c", "d", "e"}) {
			t.Errorf("pages = %v", got)
		}
		page, _, more, err := st.List(ctx, "s", "bb", 10) // not an id
		if err != nil || !slices.Equal(page, []string{"c", "d", "e"}) || more {
			t.Errorf("List after bb = %v, %v, %v", page, more, err)
		}
	}},
	{"deletesASessionsTasksAlone", func(t *testing.T, st mcp.TaskStore) {
		must(t, st.Create(ctx, "s", "t1", []byte("1"), hour(), 10))
		must(t, st.Create(ctx, "s", "t2", []byte("2"), hour(), 10))
		must(t, st.Create(ctx, "other", "t1", []byte("o"), hour(), 10))
		must(t, st.DeleteSession(ctx, "s"))
		for _, id := range []string{"t1", "t2"} {
			if _, err := st.Get(ctx, "s", id); !errors.Is(err, mcp.ErrTaskNotFound) {
				t.Errorf("Get(s, %s) after DeleteSession = %v", id, err)
			}
		}
		if ids, _, _, err := st.List(ctx, "s", "", 10); err != nil || len(ids) != 0 {
			t.Errorf("List(s) after DeleteSession = %v, %v", ids, err)
		}
		if got, err := st.Get(ctx, "other", "t1"); err != nil || string(got) != "o" {
			t.Errorf("another session's task: %q, %v", got, err)
		}
		must(t, st.DeleteSession(ctx, "never"))
	}},
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// eventually waits, up to 10 s, for cond.
func eventually(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
