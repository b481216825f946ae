// Package mcp serves the Model Context Protocol over the mcpwire engine:
// a Server holds tools, resources, resource templates, prompts and a
// completion handler, and serves them to any number of sessions, each a
// conn.Conn of its own.
//
// # Sessions
//
// A Server is a conn.Binder: given to transport.NewServer it makes each
// accepted connection a session; Connect starts one on a message stream
// (conn.Pipe, a WebSocket, or nil for one served body by body through
// conn.Conn.ServeBody); Run serves one byte
// stream, such as transport.NewStdio(), until it ends. A ServerSession
// keeps everything negotiated at initialize — the protocol version, the
// client's identity and capabilities, the capabilities declared to it —
// and its log level and subscriptions. Nothing is kept in globals, so one
// server speaks every supported version at once.
//
// # Lifecycle
//
// initialize negotiates the version: the client's when it is one of
// SupportedVersions (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05),
// else LatestVersion. The capabilities declared are logging, and tools,
// resources (with subscribe), prompts (each with listChanged) and
// completions when the server has them, plus ServerOptions.Capabilities.
// Before initialize, only ping is served: any other request is answered
// -32600 and notifications are ignored; a second initialize is -32600
// too. JSON-RPC batches are refused (-32600) except on sessions that
// negotiated 2025-03-26, the one version that has them. Methods of the
// user's own (AddMethod) are served beside the protocol's, once the
// session is initialised; plain JSON-RPC methods that are no part of MCP
// (AddPlainMethod) are served at any time.
//
// # Fields by version
//
// Each session is answered in the terms of its negotiated version: what
// that version's schema does not define is left out. Before 2025-03-26:
// tool annotations, audio content and the completions capability. Before
// 2025-06-18: titles (of tools, resources, templates, prompts, prompt
// arguments and serverInfo), outputSchema, structuredContent (its text
// mirror stays in content), _meta of list items, content blocks and
// resource contents, and lastModified in annotations (annotations left
// empty go). Before 2025-11-25: icons, a tool's execution, serverInfo's
// description and websiteUrl, and the tasks capability. A content block
// of a type the version lacks becomes a text block, so the model still
// learns of it: a resource_link (before 2025-06-18) says its URI, then
// name, title, description, mimeType and size a line each — the client may
// still read the resource — and audio (2024-11-05) says its MIME type and
// size, its data left out. The same holds for what the server sends of its
// own accord: no message in progress notifications before 2025-03-26, no
// mode in elicitation/create and no _meta of sampling messages before
// 2025-11-25; what a version cannot carry without a change of meaning
// (tool use or several blocks in a sampling message, URL mode elicitation,
// elicitation before 2025-06-18) is refused to the handler with an error
// wrapping ErrNotSupported, nothing sent. List items are encoded once per
// version that lists them differently, and first pages are kept per
// version.
//
// # Tools
//
// AddTool registers a typed tool and returns an error, registering
// nothing, when the tool cannot be served (say its output type is an int
// rather than an object): check it. Its input schema is inferred from the
// Go type of its arguments (JSON Schema 2020-12; a field without
// omitempty or omitzero is required unless it is a pointer; a struct
// admits no other members) and its output schema from the type of its
// structured output, unless the Tool gives them: a schema given as raw
// JSON is served byte for byte (compacted). Arguments are validated
// against the input schema before the handler runs, and a failure is a
// result with isError set whose text names the member. Arguments are then
// decoded with member names matched exactly, as the validator matched
// them. A property the arguments lack is first set to its schema's
// default, if it has one (a field's `default:"…"` tag gives it in an
// inferred schema; defaults are checked against their schemas at
// AddTool), in nested objects too: validation and the handler see it.
// Schemas of the common shapes (objects of strings, numbers, booleans and
// arrays, required members, string enums, bounds) are checked on the raw
// arguments without decoding them; jsonschema-go judges the rest, and
// words every failure. Structured output is checked against the output
// schema and mirrored as a text block. An unknown tool is -32602 with its name (and
// the names available) in data. A handler's plain error becomes an isError
// result; a *codec.Error is a protocol error.
//
// # Resources and prompts
//
// Resources are read by exact URI, else through the first RFC 6570
// template (in the order of their texts) that matches; a URI nothing
// serves is -32002 with the URI in data. Sessions subscribe to URIs, and
// ResourceUpdated tells the subscribers. Prompts check their required
// arguments (-32602 naming the missing one) before their handler runs.
//
// # Lists
//
// tools/list, resources/list, resources/templates/list and prompts/list
// answer in pages of ServerOptions.PageSize, sorted by name (URI for
// resources), with opaque cursors that stay valid while items come and
// go; a cursor the server did not make is -32602. Each item is encoded
// when added, once per version family (see above). Adding or removing an
// item tells every initialised session that was promised listChanged,
// from a goroutine of the session's own so the caller never waits on a
// slow client.
//
// # Within a handler
//
// A request's Progress sends notifications/progress when the client gave
// a progress token; Log (and ServerSession.Log) sends notifications/message
// at or above the session's level (logging/setLevel; ServerOptions.LogLevel
// before). notifications/cancelled cancels the handler's context and no
// response is sent. Handlers run on the connection's pool (by default,
// goroutines the server's sessions share and reuse, never fewer than the
// handlers running) and may call the client: ServerSession.CreateMessage (sampling), Elicit, ListRoots and
// Ping; a call abandoned by its context is cancelled at the client.
//
// Elicit asks in form mode, or in URL mode (2025-11-25): the client opens
// a URL and the interaction happens out of band, its end told with
// NotifyElicitationComplete. Neither is sent to a client that did not
// declare the mode (elicitation {} is form mode), nor params that break
// the mode's rules: the handler gets an error wrapping ErrNotSupported or
// ErrInvalidElicitation. A handler that cannot go on until the user has
// completed URL mode elicitations returns URLElicitationRequired (-32042,
// the elicitations in data).
//
// # Tasks
//
// ServerOptions.Tasks turns on tasks (2025-11-25, experimental) for
// tools/call, on sessions that negotiated 2025-11-25 only: they are
// declared the tasks capability (list, cancel, requests.tools.call);
// sessions of earlier versions get none and their calls ignore the task
// param. A tools/call with a task param, of a tool whose
// Execution.TaskSupport is "optional" or "required", is answered at once
// with a CreateTaskResult (a 128-bit random id, working, createdAt, the
// ttl asked for within TaskOptions.MaxTTL, pollInterval) while the tool
// runs on a goroutine of its own; a task param on another tool, or none on
// a "required" one, is -32601. tasks/get returns a task's state,
// tasks/result waits for its end and answers what the call would have
// been answered (the result, with the related-task _meta, or the protocol
// error; a cancelled task's is -32005), tasks/list pages the session's
// tasks with opaque cursors, tasks/cancel cancels the tool's context and
// marks the task cancelled for good. A task whose tool returned isError,
// or failed, is failed. notifications/tasks/status tells the client each
// task's end. While a tool running as a task waits on the client
// (sampling, elicitation, roots), its task is input_required, and working
// again once answered (told the same way); those requests carry the
// related-task _meta, which the client's answers echo, and
// TaskIDFromContext gives the tool its task's id. An unknown or expired
// task id, a bad cursor, or cancelling a task that has ended is -32602;
// more than TaskOptions.MaxTasks live tasks in a session is -32600. Tasks
// are gone once their ttl from creation has passed (a tool still running
// is cancelled), and when their session ends. The TaskStore holds bytes under string keys; the in-memory
// default serves one process, and tasks are bound to the session that
// made them. ClientSession.CallToolAsTask, GetTask, TaskResult, ListTasks
// and CancelTask are the client's calls; ClientOptions.TaskStatusHandler
// hears notifications/tasks/status.
//
// # Streamable HTTP
//
// NewStreamableHTTPHandler serves a Server at one HTTP endpoint (mount it
// at /mcp, say), as the Streamable HTTP transport of 2025-03-26 and later
// specifies:
//
//   - POST carries one message, or a batch under 2025-03-26, with
//     Content-Type application/json (415 otherwise) and an Accept that
//     takes JSON or an event stream (406 otherwise; a request without
//     Accept takes both); a body over HTTPOptions.MaxBodyBytes is 413 (the
//     rest of it is read and dropped, within bounds, before the connection
//     closes, so that a client that writes it whole before it reads gets
//     the answer), one that is not
//     JSON 400 with a -32700 error. Notifications and responses only are
//     answered 202 with no body. A body holding requests is answered with
//     an event stream (text/event-stream): a priming event (an id and no
//     data, on sessions of 2025-11-25 and later) with the retry delay,
//     then every message the handlers send while serving it — progress,
//     log messages, and their requests to the client (sampling,
//     elicitation, roots), whose answers the client POSTs back — and the
//     answer last; or with one JSON body when HTTPOptions.JSONResponse is
//     set or the client accepts only JSON (what the handlers send then
//     goes to the GET stream).
//   - Sessions: a POST of initialize without a session starts one; its
//     id (Mcp-Session-Id, 128 random bits as visible ASCII) must come
//     with every later request: without it 400, unknown, deleted or
//     expired 404. DELETE ends a session (204). A session with no request
//     and no open stream for HTTPOptions.SessionTimeout (30 minutes)
//     expires; POSTs of pings or responses only do not count as
//     requests. A server holds at most HTTPOptions.MaxSessions sessions
//     over HTTP (its Streamable HTTP and HTTP+SSE handlers together), and
//     at most MaxSessionsPerPrincipal of one principal (the authenticated
//     identity, else the peer's IP address); a new one past either is 503
//     with Retry-After and a -32000 error whose data names the limit.
//   - GET opens the session's standalone stream, which carries what the
//     server sends outside of any request (list_changed,
//     resources/updated, logs): one at a time (409 for a second), 405
//     with HTTPOptions.DisableStandaloneSSE. Messages sent while none is
//     open wait for the next one, within the event store's bounds.
//   - Resumption: every event has an id, "<stream>.<n>", unique in its
//     session, and is kept in an EventStore. A GET with Last-Event-ID
//     replays what followed that event on its stream — never another
//     stream's — and, if the stream is still going, carries it on. A
//     handler may end its POST's response early with
//     ServerRequest.CloseSSEStream; the client resumes after the retry
//     delay and gets the rest, the answer included.
//   - MCP-Protocol-Version, when present, must be a supported version
//     (any of them, not only the negotiated one), else 400.
//   - DNS rebinding: first of all, the rule every HTTP endpoint of the
//     engine applies (transport.HostPolicy, HTTPOptions.HostPolicy): on
//     connections to a loopback address the Host must be a loopback name
//     (localhost, 127.0.0.1, [::1]) or listed, and an Origin a loopback,
//     the request's own or a listed one, else 403 with -32010.
//   - CORS (HTTPOptions.CORS): pages of the listed origins may call from a
//     browser; preflights (OPTIONS) are answered 204 with the endpoint's
//     methods and MCP's request headers, answers (errors included) expose
//     Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate and
//     Retry-After, and a listed origin passes the Origin check. Without it
//     OPTIONS is 405. Authentication given as HTTPOptions.Middleware runs
//     after CORS: preflights are answered without credentials, and its
//     refusals carry the CORS headers.
//
// Every error status comes with a JSON-RPC error response without id in
// its body. Statuses are 200, 202, 204, 400, 403, 404, 405, 406, 409,
// 413, 415, 500 (a store failed) and 503 (the handler is closed, or a
// bound on sessions is reached). A POST answered with plain JSON whose
// answer is a single error response gets the status JSON-RPC over HTTP POST gives it: 401 for -32009 (with
// WWW-Authenticate: Bearer), 403 for -32010, 429 for -32011 and 503 for
// -32000 with data.retryAfterMs (both with Retry-After), 503 for -32004;
// the body is that response, with its id. An answer on an event stream
// follows a 200 already sent.
//
// A body not sent whole within ReadTimeout is answered 400, and the
// connection closed, as after any failed read; no answer carries an
// error's text.
//
// The session store (SessionStore) and the event store hold bytes and
// strings only; given stores shared by several instances of a server,
// any instance serves a session another started (re-created from the
// stored initialize request), and a session deleted on one is refused by
// all within a quarter of SessionTimeout. The in-memory defaults serve
// one process. http.Server's own timeouts must leave event streams be:
// NewHTTPServer sets ReadHeaderTimeout and IdleTimeout only, bounds the
// body of every request whatever handler it goes to, and the handler
// bounds each body read and each write itself.
//
// Keep-alive: ServerOptions.KeepAlive and ClientOptions.KeepAlive ping
// the peer every interval and close a session whose peer misses too many
// pings in a row (logged; Wait returns ErrPingTimeout). Over Streamable
// HTTP the server pings on the GET stream, else on an open POST stream,
// and not at all while no stream is open.
//
// NewSSEHandler serves the HTTP+SSE transport of 2024-11-05 for older
// clients, beside it, under the same bounds on sessions; its sessions
// expire after SessionTimeout without a request too.
//
// Client.ConnectHTTP speaks Streamable HTTP: each outgoing message is a
// POST (requests concurrently; notifications and responses one at a
// time, in order), answers come as JSON or on the POST's event stream,
// the session id and negotiated version go with every request, a GET
// stream receives what the server sends outside of requests, a stream
// that breaks before its answer is resumed with Last-Event-ID, and Close
// sends DELETE. A session the server no longer knows ends the client
// session with ErrSessionNotFound. A server that refuses the initialize
// POST with 400, 404 or 405 is tried as a 2024-11-05 HTTP+SSE server
// (the specification's backwards compatibility rule) unless
// HTTPClientOptions.DisableSSEFallback; Client.ConnectSSE speaks that
// transport directly: a GET stream whose endpoint event names the URL
// (same origin) that messages are POSTed to.
//
// # Client
//
// A Client connects to servers — over a message stream (Connect), a byte
// stream (ConnectIO), a command it starts and speaks to over stdio
// (ConnectCommand), Streamable HTTP (ConnectHTTP) or HTTP+SSE
// (ConnectSSE) — runs the handshake, and returns a ClientSession with
// typed calls of every server method and iterators over paged lists. Its
// options' handlers serve the server's sampling, elicitation and roots
// requests (setting one declares the capability) and receive its
// notifications. Elicitation is dispatched by mode: form to
// ElicitationHandler, URL to URLElicitationHandler, a mode the client did
// not declare is -32602. ElicitationCompleteHandler hears of the URL mode
// elicitations the session knows (accepted, or named by a -32042 error,
// which URLElicitations reads) once each.
//
// # Wire types
//
// The types of the 2025-11-25 schema encode and decode through the codec
// package (sonic), always with member names matched exactly. Content
// blocks are a closed set of types behind the Content interface, each
// encoded with its "type"; UnmarshalContent decodes one by its type.
package mcp
