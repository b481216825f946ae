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
// conn.Conn.ServeBody, as an HTTP transport does); Run serves one byte
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
// # Tools
//
// AddTool registers a typed tool: its input schema is inferred from the
// Go type of its arguments (JSON Schema 2020-12; a field without
// omitempty or omitzero is required unless it is a pointer; a struct
// admits no other members) and its output schema from the type of its
// structured output, unless the Tool gives them: a schema given as raw
// JSON is served byte for byte (compacted). Arguments are validated
// against the input schema before the handler runs, and a failure is a
// result with isError set whose text names the member. Arguments are then
// decoded with member names matched exactly, as the validator matched
// them. Structured output is checked against the output schema and
// mirrored as a text block. An unknown tool is -32602 with its name (and
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
// once when added. Adding or removing an item tells every initialised
// session that was promised listChanged, from a goroutine of the
// session's own so the caller never waits on a slow client.
//
// # Within a handler
//
// A request's Progress sends notifications/progress when the client gave
// a progress token; Log (and ServerSession.Log) sends notifications/message
// at or above the session's level (logging/setLevel; ServerOptions.LogLevel
// before). notifications/cancelled cancels the handler's context and no
// response is sent. Handlers run on the connection's pool and may call the
// client: ServerSession.CreateMessage (sampling), Elicit, ListRoots and
// Ping; a call abandoned by its context is cancelled at the client.
//
// # Client
//
// A Client connects to servers — over a message stream (Connect), a byte
// stream (ConnectIO) or a command it starts and speaks to over stdio
// (ConnectCommand) — runs the handshake, and returns a ClientSession with
// typed calls of every server method and iterators over paged lists. Its
// options' handlers serve the server's sampling, elicitation and roots
// requests (setting one declares the capability) and receive its
// notifications.
//
// # Wire types
//
// The types of the 2025-11-25 schema encode and decode through the codec
// package (sonic), always with member names matched exactly. Content
// blocks are a closed set of types behind the Content interface, each
// encoded with its "type"; UnmarshalContent decodes one by its type.
package mcp
