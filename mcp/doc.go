// Package mcp serves and calls the Model Context Protocol over the mcpwire
// engine. A Server holds tools, resources, resource templates, prompts and
// a completion handler and serves them to any number of sessions, each a
// conn.Conn of its own; a Client connects to servers and returns a
// ClientSession with typed calls of every server method. Server, Client,
// ServerSession and ClientSession are safe for concurrent use; features
// may be added and removed while sessions run.
//
// # Sessions
//
// A Server is a conn.Binder: given to transport.NewServer it makes each
// accepted connection a session. Connect starts one on a message stream
// (conn.Pipe, a WebSocket, or nil for one served body by body through
// conn.Conn.ServeBody); Run serves one byte stream, such as
// transport.NewStdio(), until it ends. MCP over HTTP is package
// mcp/streamable, built on SessionTransport, Server.ConnectTransport,
// ClientTransport and Client.ConnectTransport; this package has no HTTP of
// its own.
//
// # Guarantees
//
//   - initialize negotiates the client's version when it is one of
//     SupportedVersions, else LatestVersion, and declares logging, plus
//     tools, resources (with subscribe), prompts (each with listChanged)
//     and completions when the server has them, plus
//     ServerOptions.Capabilities.
//   - Before initialize only ping is served (and requests of a stateless
//     version, below): another request is -32600
//     and a notification is ignored; a second initialize is -32600.
//     Methods of the user's own (AddMethod) are served once the session is
//     initialised; plain JSON-RPC methods (AddPlainMethod) at any time.
//     JSON-RPC batches are refused (-32600) except under 2025-03-26, the
//     one version that has them.
//   - Each session is answered in the terms of its negotiated version:
//     what that version's schema does not define is left out (see
//     Design), and what it cannot carry without a change of meaning is
//     refused to the handler with an error wrapping ErrNotSupported,
//     nothing sent.
//   - An unknown tool or prompt, a prompt missing a required argument and
//     a list cursor the server did not make are -32602 (data names the
//     tool and those available, or the argument); a resource URI nothing
//     serves is -32002 with the URI in data (-32602 under 2026-07-28). A
//     handler's *codec.Error is sent as it is.
//   - notifications/cancelled cancels the handler's context, and no
//     response is sent for that request.
//   - Keep-alive (ServerOptions.KeepAlive, ClientOptions.KeepAlive) pings
//     the peer every interval and closes a session whose peer misses too
//     many pings in a row (Wait returns ErrPingTimeout); over a
//     SessionTransport a ping goes where its PingSink says, and none is
//     sent while it has nowhere to go.
//
// # Stateless requests (2026-07-28)
//
// The same server, on the same connection, serves requests of
// [Version20260728], which has no initialize: a request whose params
// _meta names a version of [StatelessVersions] ([MetaProtocolVersion])
// is served on its own, whatever the connection served before, while
// initialize still starts a session of an older version beside it. Its
// handler sees the API of the older versions — a ServerSession
// (req.Session, SessionFromContext) whose ProtocolVersion, ClientInfo and
// ClientCapabilities are the request's _meta's ([MetaClientInfo],
// [MetaClientCapabilities]), and whose Log sends only at or above the
// request's [MetaLogLevel] (without it, nothing). Those four keys are
// the session's to say: a handler does not find them in its params' Meta,
// in any version, which holds the request's other keys of _meta alone
// (nil when there are none). That session serves
// the one request: it is not in Sessions, sends no request to the
// client (its questions become input requests, below), and its Close
// closes the connection.
//
// server/discover answers [DiscoverResult]. A _meta lacking the version
// or the client capabilities is -32602; a version the server does not
// speak is -32022 (data: supported, requested); a method 2026-07-28
// removed (initialize, ping, logging/setLevel, resources/subscribe and
// unsubscribe, tasks/result, tasks/list) is -32601. Every result carries resultType
// "complete" and the server's Implementation in _meta
// ([MetaServerInfo]); list and read results, and discover's, the cache
// hints ttlMs and cacheScope of ServerOptions.Caching (without it, 0 and
// "private"), or those a ResourceHandler set on its ReadResourceResult.
// Over Streamable HTTP those results also carry Cache-Control and a
// strong ETag (see package streamable). A _meta naming a version of
// initialize's is ignored, as it was before: the session's negotiation
// governs. subscriptions/listen opens a stream of the list changes and
// resource updates ([Server.ResourceUpdated]) its [SubscriptionFilter]
// asks for, each tagged with the request's id ([MetaSubscriptionID])
// after an acknowledgement of what the server honours; it ends
// unanswered when the client cancels it, and answered when the server's
// connection stops (listen.go). Tasks are the tasks extension there
// (see Tasks).
//
// # Caching
//
// Under 2026-07-28 the results of server/discover, tools/list,
// prompts/list, resources/list, resources/templates/list and
// resources/read carry ttlMs and cacheScope: ServerOptions.Caching gives
// them per method (with a default), a ResourceHandler per read
// (ReadResourceResult.TTLMs, CacheScope). Every page of a list gets its
// list's hint. Results of the older versions carry none.
//
// ServerOptions.ResponseCache (package cache) lets the server itself
// honour them: a result whose hint is public and fresh for a positive
// ttl is kept for that ttl, keyed by method and params (the request's
// _meta included), and identical requests are answered from it; a
// private one is never kept, since the server cannot tell authorization
// contexts apart. Results of the older versions, and of requests
// carrying requestState or inputResponses, are never kept. Adding or
// removing a tool, prompt, resource or template drops the cached pages
// of its list (and, for resources and templates, the cached reads).
//
// # Multi-round-trip requests (2026-07-28)
//
// A handler asks its client with one call in every version: a request's
// Elicit, Sample, Roots or Inputs (several questions at once), or the
// ServerSession methods behind them. Under the versions with initialize
// each is a request to the client, answered while the handler waits.
// Under 2026-07-28, on tools/call, prompts/get and resources/read, a
// question without an answer makes the call fail with
// [ErrInputRequired]; the handler returns it, and the request is
// answered with resultType "input_required", the questions in
// inputRequests (keyed by Input.Key, or "input-1", "input-2"… in the
// order asked) and a requestState. The client retries the request with
// the answers in inputResponses and the requestState; the handler runs
// again from the start, and this time the same calls return the answers.
// A handler may need several rounds: each requestState carries the
// answers of the rounds before, and the handler's own state
// (ServerRequest.SetState, read back with State). A retry without
// requestState is served with the answers it carries alone (the client
// answers for itself; what it cannot forge is what the state carries). A
// handler asks from one goroutine at a time.
//
// The handler is therefore re-run, once per round: it must do the same
// up to its questions (ask the same things in the same order) and defer
// what must happen once (a payment, a write) until it has every answer.
// An answer of the client is used only for the question asked under its
// key; other members of inputResponses are ignored, and one the round
// lacks is asked again. inputResponses that are not an object of
// objects, or an answer that is not a valid result of its question's
// method, are -32602. On other methods (completion/complete, custom
// ones) a question fails with an error wrapping ErrNotSupported, as a
// question needing a capability the request's _meta did not declare
// does; returned by the handler, the latter is -32021 naming it in
// requiredCapabilities.
//
// requestState is sealed (encrypted and authenticated) under the
// server's keys ([RequestStateOptions]: key rotation with an overlap, a
// lifetime, a bound on its size), bound to the method, the params other
// than _meta, inputResponses and requestState, and the authenticated
// principal of the request's context. One that was altered, expired,
// sealed under a key the server does not accept, or presented with
// another request or principal is -32602 with data {"field":
// "requestState", "reason": …}; the client starts the request over. A
// state opens as often as it is presented until it expires: what must
// happen at most once needs a record of its own on the server.
//
// A client speaks 2026-07-28 unless [ClientOptions].ProtocolVersion names
// another version ([DefaultClientVersion]): its session asks
// server/discover instead of initialize, adds the
// version, its capabilities and its identity to the _meta of every
// request, completes input_required results with its sampling,
// elicitation and roots handlers (the requestState echoed, at most 16
// rounds), keeps list results while their ttlMs says they are fresh
// (until the list's list_changed), and falls back to initialize when
// the server answers server/discover with an error of the older versions.
// What the version removed fails at once, nothing sent: Ping and the
// tasks calls with an error wrapping [ErrNotInVersion];
// SetLoggingLevel instead sets the level every later request carries in
// _meta ([MetaLogLevel]), and NotifyRootsListChanged sends nothing. A
// transport of the older versions alone (HTTP+SSE) connects with
// [Client.ConnectStateful], which runs initialize. Over Streamable HTTP (package mcp/streamable) each POST then carries
// MCP-Protocol-Version, Mcp-Method, Mcp-Name and the Mcp-Param headers
// of the tool's x-mcp-header annotations ([ToolParamHeaders]).
//
// # Tools
//
// AddTool registers a typed tool, or returns an error and registers
// nothing when the tool cannot be served (an output type that is not an
// object, say): check it. Its input schema (JSON Schema 2020-12) is
// inferred from the Go type of its arguments unless the Tool gives one: a
// field is required unless it is a pointer or tagged omitempty or
// omitzero, a struct admits no other members, and a `default:"…"` tag
// gives a default (checked against its schema at AddTool). Its output
// schema comes likewise from its structured output's type. A schema given
// as raw JSON is served byte for byte (compacted).
//
// Arguments are completed with their schema's defaults (in nested objects
// too), validated against the input schema before the handler runs — a
// failure is a result with isError set whose text names the member — and
// decoded with member names matched exactly, as the validator matched
// them. Structured output is checked against the output schema and
// mirrored as a text block. A handler's plain error becomes an isError
// result.
//
// # Resources, prompts and lists
//
// A resource is read by exact URI, else through the first RFC 6570
// template (in the order of their texts) that matches. Sessions subscribe
// to URIs; ResourceUpdated tells the subscribers. Prompts check their
// required arguments before their handler runs. tools/list,
// resources/list, resources/templates/list and prompts/list answer in
// pages of ServerOptions.PageSize, sorted by name (URI for resources),
// with opaque cursors that stay valid while items come and go. Adding or
// removing an item tells every initialised session that was promised
// listChanged, without making the caller wait on a slow client.
//
// # Several instances
//
// Instances of a server behind a load balancer that share a session store
// (mcp/streamable's SessionStore) each hold a copy of a session they
// serve. Two optional hooks make the copies one session (package
// redisstore implements both): under ServerOptions.SessionState, the log
// level and subscriptions a session sets are saved when a request changes
// them (never on other requests), loaded by a copy re-created from the
// store, and loaded again by every other copy when one changes them;
// under ServerOptions.Broadcast, ResourceUpdated and list changes are
// published, and each instance tells its own sessions that want them. An
// instance does not wait for its store: when it fails, a change holds on
// the copy that made it and a notification reaches that instance's
// sessions only, both logged, and the sharing resumes by itself once the
// store is back (a change or notification made while another instance
// was cut off from it is missed there). With both hooks nil nothing is
// shared and nothing costs more.
//
// # Scopes
//
// A feature declares the OAuth scopes a caller's access token must grant
// where it is registered (Tool.Scopes, Resource.Scopes,
// ResourceTemplate.Scopes, Prompt.Scopes), and a method in
// ServerOptions.MethodScopes (ServerOptions.ToolScopes adds scopes to
// tools by name, for a deployment's configuration). Before a request's
// handler runs, the principal its context carries (middleware.Auth, or
// oauth.Bearer over HTTP) must grant them all (ScopeHolder, which
// oauth.Principal is): else it is answered -32010 with data {"scope":
// "<the missing scopes>"}, or -32009 when there is no principal. Over
// HTTP the transport checks first and answers 403 with the step-up
// challenge (package streamable). Lists are not filtered: tools/list and
// the others name every feature, so that a client knows what to ask a
// token for. Until a scope is declared, no request is checked.
//
// # Within a handler
//
// A request's Progress sends notifications/progress when the client gave
// a progress token; Log (and ServerSession.Log) sends notifications/message
// at or above the session's level (logging/setLevel, else
// ServerOptions.LogLevel). Handlers that are not inline run on the
// connection's pool and may call the client — ServerSession.CreateMessage
// (sampling), Elicit, ListRoots and Ping (under 2026-07-28, see
// Multi-round-trip requests); a call abandoned by its context is
// cancelled at the client.
//
// Elicit asks in form mode, or in URL mode (2025-11-25), where the client
// opens a URL and the interaction happens out of band, its end told with
// NotifyElicitationComplete. Neither is sent to a client that did not
// declare the mode (elicitation {} is form mode), nor params that break
// the mode's rules: the handler gets an error wrapping ErrNotSupported or
// ErrInvalidElicitation. A handler that cannot go on until the user has
// completed URL mode elicitations returns URLElicitationRequired (-32042,
// the elicitations in data).
//
// # Tasks
//
// ServerOptions.Tasks serves tools/call as tasks (2025-11-25,
// experimental) to sessions of that version, declared the tasks
// capability (list, cancel, requests.tools.call); others get none and
// their calls ignore the task param. A tools/call with a
// task param, of a tool whose Execution.TaskSupport is "optional" or
// "required", is answered at once with a CreateTaskResult (a 128-bit
// random id, its ttl within TaskOptions.MaxTTL) while the tool runs; a
// task param on another tool, or none on a "required" one, is -32601.
// tasks/result waits for the task's end and answers what the call would
// have been answered (with the related-task _meta; a cancelled task's is
// -32005); tasks/get gives its state, tasks/list pages the session's
// tasks, tasks/cancel cancels the tool's context and marks the task
// cancelled for good. A tool that returned isError, or failed, makes its
// task failed; notifications/tasks/status tells each task's end. A task whose tool waits on the client is input_required meanwhile;
// TaskIDFromContext gives the tool its task's id. An unknown or expired
// task id, a bad cursor, or cancelling an ended task is -32602; more than
// TaskOptions.MaxTasks live tasks in a session is -32600. A task is gone
// once its ttl has passed (a tool still running is cancelled) or its
// session has ended. The client's calls are ClientSession.CallToolAsTask,
// GetTask, TaskResult, ListTasks and CancelTask;
// ClientOptions.TaskStatusHandler hears the status notifications.
//
// Under 2026-07-28 the same TaskOptions serve the tasks extension
// ([TasksExtension], declared in ServerCapabilities.Extensions by
// server/discover) to the requests that declare it in their _meta's
// client capabilities: the server decides which calls become tasks (a
// tool that supports them runs as one from the start, any other's
// handler may call [StartTask]), tools/call answers the task itself
// (resultType "task"), tasks/get the task with its result, error or
// input requests inlined, tasks/update answers those, tasks/cancel is
// acknowledged even once the task has ended; a task is bound to the
// request's principal, not to a connection (tasks_ext.go). A request
// that did not declare the extension is refused tasks/get, tasks/update
// and tasks/cancel, and calls of a "required" tool, with -32021.
//
// Several instances share tasks through one TaskStore (package
// redisstore's): a task's record is there, its tool runs in the instance
// that started it, and any instance serves tasks/get, tasks/list,
// tasks/update, tasks/cancel and tasks/result (a 2025-11-25 task is kept
// under the session's Mcp-Session-Id, so every instance's copy of the
// session finds it). A store with [TaskSignals] carries a cancellation
// to the running instance at once, and a task's end to a tasks/result
// waiting elsewhere; each also reads the record now and then, so a lost
// signal costs time. With such a store a task has a lease
// (TaskOptions.Lease): a task whose instance died is failed (-32603,
// "the instance running the task stopped before it ended") by the first
// tasks/get or tasks/result past it; without a lease it stays working
// until its ttl. A store that fails (Redis down) fails the task request
// with -32603 "the task store is unavailable" within the request's
// deadline, and a task ending meanwhile keeps its last stored state
// (tasks_shared.go, tasks_lease.go).
//
// # Client
//
// A Client connects over a message stream (Connect), a byte stream
// (ConnectIO), a command it starts and speaks to over stdio
// (ConnectCommand), or HTTP (package mcp/streamable), runs the handshake
// (server/discover under 2026-07-28, the default, else initialize; see
// Multi-round-trip requests) and returns a ClientSession with typed calls and iterators over paged
// lists. Its options' handlers serve the server's sampling, elicitation
// and roots requests (setting one declares the capability) and receive
// its notifications. Elicitation is dispatched by mode — form to
// ElicitationHandler, URL to URLElicitationHandler; a mode the client did
// not declare is -32602 — and ElicitationCompleteHandler hears once of
// each URL mode elicitation the session knows (accepted, or named by a
// -32042 error, which URLElicitations reads). An accepted form is sent
// with its schema's defaults filled in where the handler's content lacks
// an optional property (SEP-1034).
//
// The output schemas of the tools a session listed (ListTools, Tools) are
// kept until notifications/tools/list_changed or a new first page, and
// compiled once each: a result of CallTool or CallToolWith that is not an
// error result must have structuredContent matching its tool's schema,
// else the call fails with a *ToolOutputError. A tool the session has not
// listed is not checked; the session does not list tools on its own.
//
// # Design
//
// A ServerSession keeps everything negotiated at initialize — the
// version, the client's identity and capabilities, the capabilities
// declared to it — with its log level and subscriptions; nothing is kept
// in globals, so one server speaks every supported version at once. What
// a version lacks is dropped when its answer is encoded: before
// 2025-03-26, tool annotations, audio content, the completions capability
// and the message of progress notifications; before 2025-06-18, titles, outputSchema,
// structuredContent (its text mirror stays), the _meta of list items,
// content and resource contents, and lastModified; before 2025-11-25,
// icons, a tool's execution, serverInfo's description and websiteUrl, the
// tasks capability, the mode of elicitation/create and the _meta of
// sampling messages. A content block of a type the version lacks becomes a
// text block, so the model still learns of it: a resource_link says its
// URI and metadata a line each, audio its MIME type and size. List items
// are encoded once when added, per version that lists them differently,
// and first pages are kept per version. List changes are sent from a
// goroutine of each session's own.
//
// Handlers run on ServerOptions.Conn's pool, else on goroutines the
// server's sessions share (never fewer than the handlers running, so one
// never waits for another). Tool arguments of the common shapes (objects
// of strings, numbers, booleans and arrays, required members, string
// enums, bounds) are validated on the raw JSON without decoding it;
// jsonschema-go judges the rest and words every failure. A task runs on a
// goroutine of its own and is kept in a TaskStore, which holds bytes
// under string keys; the in-memory default serves one process, and a task
// is bound to the session that made it. The wire types of the
// 2025-11-25 schema encode and decode through package codec (sonic), with
// member names matched exactly; content blocks are a closed set behind the
// Content interface, each encoded with its "type" (UnmarshalContent
// decodes one).
package mcp
