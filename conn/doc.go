// Package conn runs one bidirectional JSON-RPC 2.0 session: it reads and
// dispatches requests to a router, runs handlers inline or on a pool,
// writes their responses coalesced, and sends calls and
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
// # Design: the execution model
//
// A request goes from the stream to a handler and back in one of three
// ways, chosen by its method (router.MethodOptions):
//
//   - an interceptor (a response cache) answers it on the goroutine that
//     read it, through the method's middleware if it has any
//     (router.Entry.Intercepted: a hit is authorised and rate limited as a
//     miss is);
//   - an inline handler runs on that goroutine too: cheap handlers pay no
//     hand-off;
//   - any other handler is admitted (Options.MaxInFlight, then a shared
//     Options.Admission) and handed off, with a copy of its frame (the
//     read buffer is reused for the next read), to the executor:
//     Options.Pool, or else a pool.Pool with no bound on workers shared
//     by every connection without a pool of its own. Admitted alike, a
//     body's request whose serving goroutine would only wait for it runs
//     there instead: an InProcess call's, and one a transport marks so
//     (BodySink.Here).
//
// The reader is the one goroutine that reads the stream. Its state — the
// scanner, the output it holds back, the request an inline handler is
// serving — belongs to the reader type, whose methods run on the reading
// goroutine only; code that may run anywhere takes a *reader that is nil
// off the reader. ServeBody serves a body the same way on its caller's
// goroutine, with no reader.
//
// Every answer goes through one place (reply.go) that knows where it
// belongs: a batch's slot, the ServeBody call it came in, the reader's
// held output, or the writer. The writer coalesces: producers append
// framed responses to a pending buffer, and whoever finds no write under
// way becomes the flusher and writes all that accumulated meanwhile in one
// system call. While more whole messages are already buffered, the reader
// holds its own responses back and hands them over before it would block
// or once they reach a few KiB; a worker answering while more of the
// connection's tasks wait to start leaves its response for the last of
// them to flush (bounded by a short timer). So a pipelining peer gets
// many responses per write.
//
// Both ways of holding output back, and the spare output buffers, stay
// for a measured reason. The reader's held output spares the writer's lock per response
// while the peer pipelines, and goes out at 2 KiB rather than only before
// a read would block (tools/call pipelined over stdio, 64 callers: 24%
// faster than at 64 KiB). Holding workers' responses for the tasks still
// queued (sendLater) beats leaving coalescing to the writer alone: the
// shared pool's echo, pipelined, takes 773 ns a request with it and
// 1.50 µs without (p=0.04, 8 interleaved rounds; the other pooled rows
// 1.1 to 1.5 times as slow without, within noise); its timer only runs
// when workers are slow to start. Output buffers over 1 KiB go
// to a shared pool while the reader waits (giveSpare, takeSpare), so that
// an idle connection holds about 9 KiB instead of 25 to 42.
//
// The goroutines of a connection, beside the executor's workers:
//
//	goroutine          started by                       lives
//	reader             New, NewStream with a stream     the session
//	timer callback     HandlerTimeout, the writer's     while it fires
//	                   late flush, a parent context's
//	                   cancellation (runtime timers,
//	                   context.AfterFunc)
//	closer             the end of the stream, Close,    until the handlers in
//	                   a failed write (drainAndClose,   flight have returned
//	                   finish)
//	Shutdown's flusher Shutdown                         until pending output
//	                                                    is written, or the
//	                                                    grace has passed
//
// No goroutine is started per request: a handler timeout is a runtime
// timer, which runs code only if it fires. An idle connection holds its
// reader and nothing else.
//
// Glossary. Held output: the reader's responses not yet handed to the
// writer. Hand-off: giving a task to the executor. Task: a request or
// notification handed off, with its copy of the frame and its context.
// Settled: a message whose answer (or the decision that none is due) has
// been given; every message is settled exactly once. Flusher: whoever
// writes the pending output.
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
// Prometheus one allocates per request. A Metrics that is also a
// MethodResolver is asked once for a method's MethodMetrics, which the
// reader keeps at hand with their MethodTally (the reader's own answers
// are gathered there and reported just before they can be sent), and the
// reader reads the clock once per inline request it serves back to back.
// Latencies are read from the CPU's time-stamp counter where Linux keeps
// time with it (internal/clock: a third of the cost of time.Since), from
// the monotonic clock elsewhere.
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
