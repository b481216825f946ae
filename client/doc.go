// Package client calls JSON-RPC 2.0 servers: Call, Notify and Batch over
// sessions it dials itself, on any transport that gives a conn.Stream —
// TCP and Unix sockets (Dial), a child process's stdin and stdout
// (DialCommand), or any DialFunc (a WebSocket, HTTP POST).
//
// # Sessions
//
// A Client holds up to Options.Sessions sessions, opened when calls need
// them. A call goes to the open session with the fewest calls pending; a
// new session is opened only while every open one is busy. A session that
// ends (the server went away, a write failed) fails the calls waiting on
// it at once with a *TransportError, and the next call that needs it dials
// again: at once after a success, after a capped exponential backoff with
// full jitter after failures in a row (Options.Redial). A call whose
// deadline comes before the backoff ends fails at once with the last
// dial's error instead of waiting.
//
// # Deadlines and retries
//
// Every call takes a context: its deadline bounds the call, its attempts
// and the waits between them (Options.Timeout gives one to a context that
// has none). A call given up is never answered later: its late answer is
// dropped and counted (Stats.Late).
//
// A call is sent at most once, unless it is marked idempotent
// (Options.Idempotent per method, or the Idempotent call option): then it
// is tried again, up to Retry.MaxAttempts in all, on these outcomes only:
// -32000 overloaded and -32011 rate limited (the server refused it before
// it started; the wait is at least its data.retryAfterMs), -32012 request
// timeout, and a
// transport failure before the request was written (*TransportError with
// Sent false: the dial failed). A transport failure after the request may
// have been written is never retried. The waits are random in [0,
// min(Max, Base·2^(n-1))] (full jitter), so that clients refused together
// do not return together.
//
// # Answers that reach no caller
//
// Every request goes out under an id of its own session, and an answer
// reaches only the call with its id. Whatever else the server sends is
// dropped and counted in Stats: an answer to an id the client never sent
// (UnknownID), a second answer (Duplicate), an answer after its caller
// gave up (Late), a message that is no JSON-RPC at all (Invalid), a frame
// over the session's Limits.MaxFrameBytes (Oversized: its call, if it was
// an answer, waits for its deadline). The session goes on. A malformed
// answer to a call waiting (both result and error or neither, an error
// without an integer code, a wrong jsonrpc…) is no such drop: it fails
// that call at once with -32603, its message beginning with
// conn.MalformedResponsePrefix, and is never retried.
//
// # Batches
//
// Batch sends its requests (notifications among them) as one array and
// returns one Response per request in the order given, each matched to
// its answer by id. A batch is sent at most once unless all of its
// methods are idempotent.
//
// # Cache
//
// Options.Cache keeps the results of the methods it names for a TTL, keyed
// by method and canonical params, bounded in entries and bytes: it is
// package cache's Cache (S3-FIFO eviction), so identical concurrent calls
// of a cached method also share one call to the server. Errors are never
// kept.
//
// # Concurrency
//
// A Client is safe for concurrent use: any number of goroutines may call,
// notify and batch at once, and Close ends every session, failing the
// calls still waiting.
package client
