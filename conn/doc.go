// Package conn runs one bidirectional JSON-RPC 2.0 session over a framed
// byte stream: it reads and dispatches requests to a router, runs handlers
// inline or on a bounded pool, writes their responses coalesced, and sends
// calls and notifications of its own to the peer.
//
// # The path of a request
//
// The reading goroutine cuts frames (codec.Framer), validates and classifies
// them (codec.Scanner) and looks the method up (router.Router). A handler
// marked inline runs right there; any other is handed to the pool with a
// copy of its frame (the read buffer is reused for the next read). Every
// response goes to the writer, which appends it to a pending buffer: whoever
// finds the writer idle becomes the flusher and writes everything that
// accumulated meanwhile in one system call. While more whole frames are
// already buffered, the reader holds its own responses back and flushes them
// only before it would block, so a pipelining peer gets many responses per
// write.
//
// # Guarantees
//
// Every request gets exactly one response: a result, the handler's error, a
// -32603 for a panic, a -32000 when the connection refuses work (overload or
// shutdown), or a -32012 when a handler outlives Options.HandlerTimeout. A
// notification never gets one. A batch is answered with one array in request
// order once all of its elements are done; its non-inline elements run in
// parallel.
//
// Work in flight on one connection is bounded by Options.MaxInFlight; when
// it is full the reader either stops reading (the peer feels backpressure)
// or answers at once with -32000 and data.retryAfterMs, per Options.Overload.
// Pending output is bounded too: a writer that falls behind blocks whoever
// produces more.
//
// Shutdown stops reading, answers requests already received but not started
// with -32000, waits for handlers to finish until its context is done,
// answers those still running with -32000, flushes and closes. Close ends at
// once; pending outgoing calls fail with ErrClosed either way.
package conn
