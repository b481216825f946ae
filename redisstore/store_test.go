package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/redistest"
	"github.com/mcpwire/mcpwire/redisstore"
)

// newStore returns a store on a fresh redis-server, closed at the end.
func newStore(t *testing.T, instance string) (*redisstore.Store, *redistest.Server) {
	t.Helper()
	srv := redistest.Start(t)
	return storeOn(t, srv, instance), srv
}

// storeOn returns another instance's store on srv.
func storeOn(t *testing.T, srv *redistest.Server, instance string) *redisstore.Store {
	t.Helper()
	rdb, err := redisstore.Dial(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	st := redisstore.New(rdb, &redisstore.Options{Instance: instance})
	t.Cleanup(func() {
		st.Close()
		rdb.Close()
	})
	return st
}

func TestStore_pingsAndRecoversAfterARestart(t *testing.T) {
	st, srv := newStore(t, "a")
	ctx := context.Background()
	if err := st.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	start := time.Now()
	if err := st.Ping(ctx); err == nil {
		t.Fatal("Ping of a killed server succeeded")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Ping of a dead server took %v, past the store's timeout", d)
	}
	srv.Restart()
	if err := st.Ping(ctx); err != nil {
		t.Fatalf("after a restart: %v", err)
	}
}
