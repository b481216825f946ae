// Package redisstore keeps what several instances of an mcpwire server
// share in Redis (or Valkey): the Streamable HTTP sessions and their SSE
// events, the tasks, a second tier of the response cache, the rate
// budgets and the key ring that seals requestState, and it carries the
// messages one instance has for another (a session's notifications, a
// task's cancellation, a cache invalidation) over Redis pub/sub.
//
// One Store, made by New from a go-redis client, serves them all; each
// goes on the option of the part it shares (cmd/demoserver's
// internal/demoserver/redis.go does exactly this):
//
//	rdb, err := redisstore.Dial("redis://127.0.0.1:6379/0")
//	st := redisstore.New(rdb, &redisstore.Options{Instance: "a"})
//	defer st.Close()
//	srv := mcp.NewServer(impl, &mcp.ServerOptions{
//		SessionState:  st, // log level, subscriptions
//		Broadcast:     st, // resources/updated, list_changed
//		Tasks:         &mcp.TaskOptions{Store: st.TaskStore()},
//		ResponseCache: cache.New(&cache.Options{Tier: st.CacheTier(nil)}),
//	})
//	ring, err := st.KeyRing(ctx, nil) // requestState's keys
//	err = ring.Attach(srv)
//	srv.Use(middleware.RateLimit(10, 20, &middleware.RateOptions{
//		Key: middleware.PrincipalKey, Store: st.RateBudgets("calls"),
//	}))
//	h := streamable.NewHandler(srv, &streamable.Options{
//		SessionStore: st.SessionStore(),
//		EventStore:   st.EventStore(0, 0), // the default bounds
//	})
//
// While Redis is down every part degrades as its documentation says and
// none waits past a request's deadline: live sessions go on being served
// where they have a copy, new ones are refused (503, -32000), task
// requests fail (-32603), the cache answers its local hits and fills
// locally, rate budgets fall back to each instance's own limiter, the key
// ring stays as it was, notifications reach this instance's sessions
// only. go-redis reconnects, and the subscriptions are renewed, without a
// restart. docs/scale-out.md describes a deployment.
//
// Every key the package writes starts with Options.Prefix ("mcpwire:" by
// default) and has a time to live; the keys are listed in keys.md. Only
// commands that Redis 6.2 and later and Valkey 7 and later both have are
// used, and Lua scripts; a single Redis or a primary with replicas, not a
// Redis Cluster (some scripts touch keys they do not declare). Every call
// to Redis is bounded by Options.Timeout as well as by its context, so
// that no request waits on a Redis that is gone past its deadline.
package redisstore
