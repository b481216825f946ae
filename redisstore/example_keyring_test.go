package redisstore_test

import (
	"context"
	"log"
	"net/http"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/middleware"
	"github.com/mcpwire/mcpwire/redisstore"
)

// An instance of a server run as several: its requestState keys and its
// callers' rate budgets are those of every instance sharing the Redis.
// (Not run: it needs a Redis.)
func ExampleStore_KeyRing() {
	rdb, err := redisstore.Dial("rediss://mcp:secret@redis.internal:6379/0") // TLS: the ring holds secrets
	if err != nil {
		log.Fatal(err)
	}
	st := redisstore.New(rdb, &redisstore.Options{Instance: "a"})
	defer st.Close()

	ring, err := st.KeyRing(context.Background(), nil) // creates the first key if there is none
	if err != nil {
		log.Fatal(err)
	}
	defer ring.Close()
	srv := mcp.NewServer(&mcp.Implementation{Name: "svc", Version: "1"}, &mcp.ServerOptions{
		RequestState: &mcp.RequestStateOptions{Keys: ring.Keys()},
	})
	if err := ring.Attach(srv); err != nil { // follows rotations done on any instance
		log.Fatal(err)
	}
	srv.Use(middleware.RateLimit(10, 20, &middleware.RateOptions{
		Key:   middleware.PrincipalKey,
		Store: st.RateBudgets("calls"),
	}))
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", streamable.NewHandler(srv, nil)))
}

// Rotating the requestState key of every instance, from any one of them.
func ExampleKeyRing_Rotate() {
	var ring *redisstore.KeyRing // Store.KeyRing's
	key, err := ring.Rotate(context.Background())
	if err != nil {
		log.Print("rotation failed (Redis unreachable?): ", err)
		return
	}
	log.Printf("key %d seals on every instance after KeyRingOptions.Delay", key.ID)
}
