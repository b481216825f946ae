// Package soak holds no code of its own: its tests drive the engine from
// outside, over real loopback sockets, the way a busy and careless world
// would, and check the guarantees of DESIGN.md §3 hold through it.
//
//   - The fault-injection soak (soak_test.go) sends requests from many
//     clients to a transport.Server whose handlers panic, fail, overrun
//     their HandlerTimeout and sleep, while some connections are cut at a
//     random byte offset (mid-frame included, by a close or a reset).
//     Every request of a connection that survives is answered exactly once
//     (a bitset of ids per connection), with a result or the documented
//     code of its fault (-32603 for a panic, -32012 for an overrun; a
//     -32012 for another when HandlerTimeout beat a stalled handler, a
//     few in a thousand at most, counted and reported); no
//     handler runs twice (runs counted per id on the server); no
//     notification is answered and each one that was sent runs once; and
//     afterwards goroutines, descriptors and the heap are back to where
//     they were. A fifth of the same run then goes over OS pipes
//     (transport.Server.ServeConn, as a stdio server is served), cut by
//     closing them.
//   - The overload test (overload_test.go) drives a server with a bounded
//     pool at twice its measured capacity, refusing (pool.Reject) or
//     holding back (pool.Block): accepted + refused = sent, refusals are
//     fast and carry data.retryAfterMs, and the heap stays flat.
//
// The soak's size depends on the build: 1,000,000 requests from 64
// clients without the race detector (soak_full_test.go), a smaller run
// under it (soak_race_test.go). MCPWIRE_SOAK=long runs it for ten minutes
// instead (rounds of the full size until the time is up; give go test a
// -timeout above that), MCPWIRE_SOAK=short a small run in any build.
package soak
