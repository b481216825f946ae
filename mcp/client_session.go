package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
)

// ClientSession is a client's session with one server: what the handshake
// negotiated, and typed calls of the server's methods. Safe for concurrent
// use.
type ClientSession struct {
	client *Client
	c      *conn.Conn
	hs     ClientTransport  // the transport's, or nil
	init   InitializeResult // set by the handshake, read-only afterwards
	// modern, under a stateless version, holds the members every
	// request's _meta carries (see callModern); nil under the others.
	// Set by the handshake, read-only afterwards.
	modern []byte
	// logMeta, once SetLoggingLevel has run under a stateless version, is
	// modern with the level (MetaLogLevel) added.
	logMeta atomic.Pointer[[]byte]

	elicits pendingElicitations // URL mode elicitations not yet complete
	outputs toolOutputs         // output schemas of the listed tools
	lists   listCache           // fresh list results (stateless versions)
	listen  listening           // the subscriptions/listen stream (stateless versions)
	// failure, if set before the connection is closed, is what Wait
	// returns (ErrPingTimeout).
	failure atomic.Pointer[error]
}

// Conn returns the connection the session runs on.
func (s *ClientSession) Conn() *conn.Conn { return s.c }

// InitializeResult returns the server's answer to initialize: its
// protocol version, capabilities, identity and instructions; under a
// stateless version, the same made of server/discover's answer. Shared:
// do not modify it.
func (s *ClientSession) InitializeResult() *InitializeResult { return &s.init }

// ProtocolVersion returns the negotiated version: the stateless one the
// server listed in server/discover, or the one initialize agreed on.
func (s *ClientSession) ProtocolVersion() string { return s.init.ProtocolVersion }

// Close ends the session at once.
func (s *ClientSession) Close() error { return s.c.Close() }

// Wait blocks until the session has ended and returns why:
// ErrPingTimeout when the server stopped answering keep-alive pings.
func (s *ClientSession) Wait() error {
	err := s.c.Wait()
	if f := s.failure.Load(); f != nil {
		return *f
	}
	return err
}

// keepAlivePing implements pinger.
func (s *ClientSession) keepAlivePing(ctx context.Context) (bool, error) {
	return true, s.Ping(ctx)
}

// keepAliveFailed implements pinger: the session is closed, and Wait
// returns ErrPingTimeout.
func (s *ClientSession) keepAliveFailed(missed int, last error) {
	var name string
	if si := s.init.ServerInfo; si != nil {
		name = si.Name
	}
	logKeepAliveFailure(s.client.log, s.client.opts.KeepAlive, missed, last, "server", name)
	err := ErrPingTimeout
	s.failure.Store(&err)
	_ = s.c.Close()
}

// call sends a request and decodes its result case-sensitively. A call
// abandoned by ctx is cancelled at the server with
// notifications/cancelled.
func (s *ClientSession) call(ctx context.Context, method string, params, result any) error {
	if h := s.client.sending.Load(); h != nil {
		return s.callVia(ctx, *h, method, params, result)
	}
	return s.send(ctx, method, params, result)
}

// send is call without the client's sending middleware.
func (s *ClientSession) send(ctx context.Context, method string, params, result any) error {
	if s.modern != nil {
		return s.callModern(ctx, method, params, result)
	}
	var room []byte
	if r, ok := result.(interface{ resultRoom() []byte }); ok {
		room = r.resultRoom()
	}
	raw, err := s.c.AppendCall(ctx, room, method, params)
	if err != nil {
		return s.callFailed(ctx, err)
	}
	return s.decode(raw, result)
}

// callFailed returns err, the failure of a call, once the server has been
// told of a call abandoned by ctx (notifications/cancelled) and the URL
// mode elicitations a -32042 error names are known.
func (s *ClientSession) callFailed(ctx context.Context, err error) error {
	var ce *conn.CanceledCallError // its address escapes: only on failure
	if errors.As(err, &ce) {
		_ = s.c.Notify(context.WithoutCancel(ctx), "notifications/cancelled",
			&CancelledParams{RequestID: json.RawMessage(ce.ID), Reason: ce.Err.Error()})
	}
	for _, id := range s.elicits.expectAll(err) {
		s.client.elicitationComplete(ctx, s, id)
	}
	return err
}

// ended reports whether the session's connection has ended.
func (s *ClientSession) ended() bool {
	select {
	case <-s.c.Done():
		return true
	default:
		return false
	}
}

// decode decodes a call's raw result (the call's own copy) into result,
// case-sensitively; a nil result discards it.
func (s *ClientSession) decode(raw codec.Raw, result any) error {
	if result == nil {
		return nil
	}
	if o, ok := result.(ownedDecoder); ok && codec.KindOf(raw) != codec.ValueNull {
		return o.decodeOwned(raw) // raw is this call's copy, dropped here
	}
	if u, ok := result.(json.Unmarshaler); ok && codec.KindOf(raw) != codec.ValueNull {
		return u.UnmarshalJSON(raw) // as sonic would, without finding out first
	}
	return codec.UnmarshalExact(raw, result)
}

// ownedDecoder is a result that can decode from bytes it may keep.
type ownedDecoder interface{ decodeOwned(data []byte) error }

// Ping checks that the server answers. Under a stateless version
// (Version20260728), which has no ping, it fails at once with an error
// wrapping ErrNotInVersion, nothing sent.
func (s *ClientSession) Ping(ctx context.Context) error {
	if s.modern != nil {
		return s.notInVersion("ping")
	}
	return s.call(ctx, "ping", nil, nil)
}

// ErrNotInVersion is wrapped by the error of a ClientSession call of a
// method that the session's protocol version does not have (ping under
// 2026-07-28): the call fails at once, nothing sent.
var ErrNotInVersion = errors.New("mcp: the session's protocol version does not have this method")

func (s *ClientSession) notInVersion(method string) error {
	return fmt.Errorf("%w: %s is not part of protocol version %s", ErrNotInVersion, method, s.ProtocolVersion())
}

// ListTools returns one page of the server's tools (p may be nil). The
// session keeps the output schemas listed, to check the results of
// CallTool and CallToolWith: a page without a cursor replaces those kept,
// a page with one adds to them.
//
// Under a stateless version (Version20260728), a tool whose x-mcp-header
// annotations break the specification's rules (ToolParamHeaders) is left
// out, with a warning logged, and a page the server marked fresh
// (ttlMs) is answered from the session's cache until it is stale or the
// server sends notifications/tools/list_changed; so are the other lists.
func (s *ClientSession) ListTools(ctx context.Context, p *ListToolsParams) (*ListToolsResult, error) {
	p = orEmpty(p)
	gen := s.outputs.generation()
	var r ListToolsResult
	if err := s.call(ctx, "tools/list", p, &r); err != nil {
		return nil, err
	}
	if s.modern != nil {
		r.Tools = s.checkParamHeaders(r.Tools)
	}
	s.outputs.listed(gen, p.Cursor == "", r.Tools)
	return &r, nil
}

// Tools iterates over all of the server's tools, page by page.
func (s *ClientSession) Tools(ctx context.Context) iter.Seq2[*Tool, error] {
	return pages(ctx, func(cursor string) ([]*Tool, string, error) {
		r, err := s.ListTools(ctx, &ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Tools, r.NextCursor, nil
	})
}

// CallTool calls a tool with args (any value that encodes to a JSON
// object; nil for none). A tool's own failure is a result with IsError
// set; err is for protocol failures.
//
// When the session's latest listing of tools (ListTools, Tools) gave the
// tool an output schema, and no notifications/tools/list_changed came
// since, a result that is not an error result must have structuredContent
// that matches the schema: else the call returns a *ToolOutputError (the
// result in it). A tool not listed so is not checked: the session does
// not list tools on its own.
func (s *ClientSession) CallTool(ctx context.Context, name string, args any) (*CallToolResult, error) {
	c := &toolCall{args: callToolArgs{name, args}}
	err := s.call(ctx, "tools/call", &c.args, c)
	c.args = callToolArgs{} // the result keeps c alive: not the caller's args
	if err != nil {
		return nil, err
	}
	if o := s.outputs.lookup(name); o != nil {
		if err := o.check(name, &c.r); err != nil {
			return nil, err
		}
	}
	return &c.r, nil
}

// callToolArgs are the params of tools/call as CallTool sends them: the
// arguments a Go value, encoded with the params in one pass (not encoded
// alone, then copied and compacted as raw JSON).
type callToolArgs struct {
	Name      string `json:"name"`
	Arguments any    `json:"arguments,omitempty"`
}

// toolCall is CallTool's params and result in one allocation, with room
// for the usual result's one text block, and for the raw result of a
// small one: its text then aliases room (decodeOwned). It decodes the
// result into r.
type toolCall struct {
	r    CallToolResult
	args callToolArgs
	one  oneTextBlock
	room [toolCallRoom]byte
}

// toolCallRoom is how many bytes of a raw result a toolCall holds: the
// struct then fills the 208-byte size class of Go's allocator.
const toolCallRoom = 72

// resultRoom is where the call's raw result is copied (conn.Conn.AppendCall).
func (c *toolCall) resultRoom() []byte { return c.room[:0] }

// decodeOwned is CallToolResult.decodeOwned into c.r, a single text block
// decoded into c.one.
func (c *toolCall) decodeOwned(data []byte) error { return c.r.decodeOwnedInto(data, &c.one) }

// CallToolWith calls a tool with raw params (a progress token in Meta,
// say). Its result is checked against the tool's output schema as
// CallTool's is.
func (s *ClientSession) CallToolWith(ctx context.Context, p *CallToolParams) (*CallToolResult, error) {
	var r CallToolResult
	if err := s.call(ctx, "tools/call", p, &r); err != nil {
		return nil, err
	}
	if o := s.outputs.lookup(p.Name); o != nil && p.Task == nil {
		if err := o.check(p.Name, &r); err != nil {
			return nil, err
		}
	}
	return &r, nil
}

// ListResources returns one page of the server's resources (p may be nil).
func (s *ClientSession) ListResources(ctx context.Context, p *ListResourcesParams) (*ListResourcesResult, error) {
	var r ListResourcesResult
	if err := s.call(ctx, "resources/list", orEmpty(p), &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Resources iterates over all of the server's resources.
func (s *ClientSession) Resources(ctx context.Context) iter.Seq2[*Resource, error] {
	return pages(ctx, func(cursor string) ([]*Resource, string, error) {
		r, err := s.ListResources(ctx, &ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Resources, r.NextCursor, nil
	})
}

// ListResourceTemplates returns one page of the server's resource
// templates (p may be nil).
func (s *ClientSession) ListResourceTemplates(ctx context.Context, p *ListResourceTemplatesParams) (*ListResourceTemplatesResult, error) {
	var r ListResourceTemplatesResult
	if err := s.call(ctx, "resources/templates/list", orEmpty(p), &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ReadResource reads a resource.
func (s *ClientSession) ReadResource(ctx context.Context, uri string) (*ReadResourceResult, error) {
	var r ReadResourceResult
	if err := s.call(ctx, "resources/read", &ReadResourceParams{URI: uri}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Subscribe asks to be told when a resource changes
// (ClientOptions.ResourceUpdatedHandler).
// Under a stateless version it is a filter of the session's
// subscriptions/listen stream (ErrNotSupported if the server does not
// declare resources.subscribe).
func (s *ClientSession) Subscribe(ctx context.Context, uri string) error {
	if s.modern != nil {
		return s.subscribeStateless(ctx, uri, true)
	}
	return s.call(ctx, "resources/subscribe", &SubscribeParams{URI: uri}, nil)
}

// Unsubscribe undoes Subscribe.
func (s *ClientSession) Unsubscribe(ctx context.Context, uri string) error {
	if s.modern != nil {
		return s.subscribeStateless(ctx, uri, false)
	}
	return s.call(ctx, "resources/unsubscribe", &SubscribeParams{URI: uri}, nil)
}

// ListPrompts returns one page of the server's prompts (p may be nil).
func (s *ClientSession) ListPrompts(ctx context.Context, p *ListPromptsParams) (*ListPromptsResult, error) {
	var r ListPromptsResult
	if err := s.call(ctx, "prompts/list", orEmpty(p), &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Prompts iterates over all of the server's prompts.
func (s *ClientSession) Prompts(ctx context.Context) iter.Seq2[*Prompt, error] {
	return pages(ctx, func(cursor string) ([]*Prompt, string, error) {
		r, err := s.ListPrompts(ctx, &ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Prompts, r.NextCursor, nil
	})
}

// GetPrompt renders a prompt with its arguments.
func (s *ClientSession) GetPrompt(ctx context.Context, name string, args map[string]string) (*GetPromptResult, error) {
	var r GetPromptResult
	if err := s.call(ctx, "prompts/get", &GetPromptParams{Name: name, Arguments: args}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Complete asks for completions of a prompt's or a resource template's
// argument.
func (s *ClientSession) Complete(ctx context.Context, p *CompleteParams) (*CompleteResult, error) {
	var r CompleteResult
	if err := s.call(ctx, "completion/complete", p, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// SetLoggingLevel sets the least severe level of the log messages the
// server sends. Under a stateless version (Version20260728), which has
// no logging/setLevel, nothing is sent: every later request of the
// session carries the level in its _meta (MetaLogLevel), as the version
// asks, replacing one the caller put there; a level that is not one of
// the LoggingLevel constants is refused with an error. Under those
// versions a session whose level was never set gets no log messages.
func (s *ClientSession) SetLoggingLevel(ctx context.Context, level LoggingLevel) error {
	if s.modern == nil {
		return s.call(ctx, "logging/setLevel", &SetLevelParams{Level: level}, nil)
	}
	if !level.Valid() {
		return fmt.Errorf("mcp: %q is not a logging level", level)
	}
	m := append([]byte(nil), s.modern...)
	m = append(m, ',')
	m = codec.AppendString(m, MetaLogLevel)
	m = append(m, ':')
	m = codec.AppendString(m, string(level))
	s.logMeta.Store(&m)
	return nil
}

// NotifyRootsListChanged tells the server the client's roots changed.
// Under a stateless version (Version20260728), which has no such
// notification (the server asks for the roots whenever a request needs
// them), it sends nothing and returns nil.
func (s *ClientSession) NotifyRootsListChanged(ctx context.Context) error {
	if s.modern != nil {
		return nil
	}
	return s.c.Notify(ctx, "notifications/roots/list_changed", nil)
}

// orEmpty sends {} for nil list params.
func orEmpty[P any](p *P) *P {
	if p == nil {
		return new(P)
	}
	return p
}

// pages iterates over a paged list, fetching the next page as the loop
// goes; an error ends the loop after it is yielded.
func pages[T any](ctx context.Context, fetch func(cursor string) ([]T, string, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		cursor := ""
		for {
			items, next, err := fetch(cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if next == "" || ctx.Err() != nil {
				return
			}
			cursor = next
		}
	}
}

// CallToolAsTask calls a tool as a task (2025-11-25): the server answers
// at once with the task it made, whose result TaskResult waits for. A nil
// p.Task asks for the server's default lifetime.
//
// The tasks of 2025-11-25 are not part of the stateless versions
// (2026-07-28 moved them to an extension this client does not speak):
// under those, CallToolAsTask, GetTask, TaskResult, ListTasks and
// CancelTask fail at once with an error wrapping ErrNotInVersion,
// nothing sent.
func (s *ClientSession) CallToolAsTask(ctx context.Context, p *CallToolParams) (*CreateTaskResult, error) {
	if s.modern != nil {
		return nil, s.notInVersion("tools/call as a task")
	}
	if p.Task == nil {
		q := *p
		q.Task = &TaskMetadata{}
		p = &q
	}
	var r CreateTaskResult
	if err := s.call(ctx, "tools/call", p, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// GetTask returns a task's state (tasks/get).
func (s *ClientSession) GetTask(ctx context.Context, taskID string) (*Task, error) {
	if s.modern != nil {
		return nil, s.notInVersion("tasks/get")
	}
	var r Task
	if err := s.call(ctx, "tasks/get", &TaskIDParams{TaskID: taskID}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// TaskResult waits for a tool call's task to end and returns what the
// call would have returned (tasks/result): its result, or its protocol
// error. The result is not checked against the tool's output schema (the
// task does not say which tool it ran).
func (s *ClientSession) TaskResult(ctx context.Context, taskID string) (*CallToolResult, error) {
	if s.modern != nil {
		return nil, s.notInVersion("tasks/result")
	}
	var r CallToolResult
	if err := s.call(ctx, "tasks/result", &TaskIDParams{TaskID: taskID}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ListTasks returns one page of the session's tasks (p may be nil).
func (s *ClientSession) ListTasks(ctx context.Context, p *ListTasksParams) (*ListTasksResult, error) {
	if s.modern != nil {
		return nil, s.notInVersion("tasks/list")
	}
	var r ListTasksResult
	if err := s.call(ctx, "tasks/list", orEmpty(p), &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// CancelTask cancels a task (tasks/cancel) and returns its state, now
// cancelled. A task that has ended already cannot be cancelled (-32602).
func (s *ClientSession) CancelTask(ctx context.Context, taskID string) (*Task, error) {
	if s.modern != nil {
		return nil, s.notInVersion("tasks/cancel")
	}
	var r Task
	if err := s.call(ctx, "tasks/cancel", &TaskIDParams{TaskID: taskID}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
