// Package conn runs one bidirectional JSON-RPC 2.0 session: it reads and
// dispatches requests to a router, runs handlers inline or on a bounded
// pool, writes their responses coalesced, and sends calls and
// notifications of its own to the peer.
//
// # Streams and bodies
//
// A session sits on a Stream, a message-level contract: read a whole
// message, write whole messages. New frames a byte stream (a socket, a
// pipe, stdio) with Options.Framing (codec.Newline, codec.Header, or a
// codec.Framing of the user's own); NewMessageStream adapts a transport
// that carries one message per unit (a WebSocket; Pipe, an in-memory
// pair). A transport that receives whole bodies (an HTTP POST) gives each
// to ServeBody, which answers it on the calling goroutine with no read
// buffer and no reader goroutine; a session made by NewStream(nil, …) is
// served that way only. ServeBodySink also hands the transport what the
// body's pooled handlers send to the peer while it is served (progress,
// the server's own requests), so that Streamable HTTP can carry them on
// the POST's event stream before the answer. InProcess joins two sessions
// of one program with no stream between: each call is served on its
// caller's goroutine.
//
// # The path of a request
//
// The reading goroutine takes messages from the stream and validates and
// classifies them (codec.Scanner), then looks the method up
// (router.Router). An interceptor registered for the method
// (router.MethodOptions.Intercept, a response cache) may answer it right
// there, through the router's middleware if there is any
// (router.Entry.Intercepted: a hit is authorised and rate limited as a
// miss is). A handler marked inline runs on the reader; any other is admitted
// (Options.MaxInFlight, then a shared Options.Admission) and handed to the
// pool with a copy of its frame (the read buffer is reused for the next
// read). Every answer goes through one place (reply.go) that knows where it
// belongs: a batch's slot, the ServeBody call it came in, the reader's held
// output, or the writer. The writer appends responses to a pending buffer:
// whoever finds it idle becomes the flusher and writes everything that
// accumulated meanwhile in one system call. While more whole messages are
// already buffered, the reader holds its own responses back and flushes
// them before it would block or once they reach 2 KiB, so a pipelining
// peer gets many responses per write, and starts on them while the reader
// serves the rest.
//
// # Guarantees
//
// Every request gets exactly one response: a result, the handler's error, a
// -32603 for a panic, a -32000 when the session refuses it before it
// started (overload or shutdown: a retry is safe; data.retryAfterMs says
// when), a -32004 when a shutdown abandoned it while it ran (it may have
// had effects), a -32005 when it was cancelled (Cancel under CancelAnswer,
// or its session closing) and its handler returned its context's error,
// or a -32012 when a handler outlives Options.HandlerTimeout.
// The one exception is a request cancelled by Cancel under CancelSilent,
// as MCP requires. A notification never gets a response. A batch is
// answered with one array in request order once all of its elements are
// settled; its non-inline elements run in parallel; a session may refuse
// batches (Options.RefuseBatches, SetBatches).
//
// A handler's plain Go error is answered -32603 "Internal error" and
// logged; its text reaches the peer only with Options.ExposeErrors. Errors
// that carry a JSON-RPC code (*codec.Error, codec.ErrCoder) are sent as
// they are.
//
// Work in flight is bounded by Options.MaxInFlight per session and by a
// shared Options.Admission; when full, the session either stops reading
// (the peer feels backpressure) or answers at once with -32000, per
// Options.Overload. The reader never waits, for admission or for room in
// a full Pool, while a call of the session is unanswered (its response
// can only come through the reader), and sends the answers it holds
// before it waits. Pending output is bounded too: a writer that falls
// behind blocks whoever produces more, and so the reader; a write that
// makes no progress for Options.WriteTimeout ends the session.
//
// # Contexts and cancellation
//
// A pooled handler's context is its request's own: Cancel(id) cancels it,
// HandlerTimeout sets its deadline, closing the session cancels it, and it
// is done once the handler returns. It allocates nothing unless the
// handler asks for Done. FromContext finds the session in it. An outgoing
// call abandoned by its context fails with a *CanceledCallError naming the
// id it went out under.
//
// # Metrics
//
// Options.Metrics, if set, is told of every request the session answers —
// its registered method (UnknownMethod, InvalidMessage for the rest), its
// JSON-RPC code (0 for a result) and its latency — whether a handler, an
// interceptor or the session on a handler's behalf answered it, of every
// request refused before a handler ran, and of handlers taken in and out
// of flight (see Metrics). Package metrics implements it for Prometheus.
// Unset, it costs a nil test at each of those points; neither it nor the
// Prometheus one allocates per request.
//
// # Lifecycle
//
// Shutdown stops reading, answers requests already received but not
// started with -32000, waits for handlers to finish until its context is
// done, answers those still running with -32004, writes out what is
// pending and closes — by its deadline whatever the peer does. Close ends
// at once; pending outgoing calls fail with ErrClosed either way. The
// states are described in lifecycle.go. A Binder chooses each session's
// options; Options.OnClose sees each session end.
package conn
