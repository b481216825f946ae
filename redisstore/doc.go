// Package redisstore keeps what several instances of an mcpwire server
// share in Redis (or Valkey): the Streamable HTTP sessions and their SSE
// events, the tasks, a second tier of the response cache, the rate
// budgets and the key ring that seals requestState, and it carries the
// messages one instance has for another (a session's notifications, a
// task's cancellation, a cache invalidation) over Redis pub/sub.
//
// One Store, made by New from a go-redis client, serves them all:
//
//	rdb, err := redisstore.Dial("redis://127.0.0.1:6379/0")
//	st := redisstore.New(rdb, &redisstore.Options{Instance: "a"})
//	defer st.Close()
//
// Every key the package writes starts with Options.Prefix ("mcpwire:" by
// default) and has a time to live; the keys are listed in keys.md. Only
// commands that Redis 6.2 and later and Valkey 7 and later both have are
// used. Every call to Redis is bounded by Options.Timeout as well as by
// its context, so that no request waits on a Redis that is gone past its
// deadline.
package redisstore
