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
// # Transports
//
// Package mcp carries no HTTP of its own: MCP over HTTP (Streamable HTTP
// and the legacy HTTP+SSE, server and client) is package mcp/streamable,
// built on SessionTransport, Server.ConnectTransport, ClientTransport and
// Client.ConnectTransport. Keep-alive (ServerOptions.KeepAlive,
// ClientOptions.KeepAlive) pings the peer every interval and closes a
// session whose peer misses too many pings in a row (logged; Wait returns
// ErrPingTimeout); over a SessionTransport the ping goes where its
// PingSink says, and none is sent while it has nowhere to go.
//
// # Client
//
// A Client connects to servers — over a message stream (Connect), a byte
// stream (ConnectIO), a command it starts and speaks to over stdio
// (ConnectCommand), or Streamable HTTP and HTTP+SSE (package
// mcp/streamable) — runs the handshake, and returns a ClientSession with
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
