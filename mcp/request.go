package mcp

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// ServerRequest is a client's request as a feature handler sees it: the
// session it came on and its decoded params. It is the handler's to keep.
type ServerRequest[P any] struct {
	Session *ServerSession
	Params  P

	id    json.RawMessage // the request's id as received
	token json.RawMessage // _meta.progressToken, or nil
	idBuf [24]byte        // holds id when it fits: no allocation of its own
}

// Requests of the handlers of each feature.
type (
	// CallToolRequest is a tools/call as a tool handler sees it.
	CallToolRequest = ServerRequest[*CallToolParams]
	// ReadResourceRequest is a resources/read as a resource handler sees it.
	ReadResourceRequest = ServerRequest[*ReadResourceParams]
	// GetPromptRequest is a prompts/get as a prompt handler sees it.
	GetPromptRequest = ServerRequest[*GetPromptParams]
	// CompleteRequest is a completion/complete.
	CompleteRequest = ServerRequest[*CompleteParams]
	// SubscribeRequest is a resources/subscribe or resources/unsubscribe.
	SubscribeRequest = ServerRequest[*SubscribeParams]
)

// init fills in the rest of the request a handler sees from what the
// router gave (whose bytes are valid only until the handler returns: the
// id and the token are copied).
func (r *ServerRequest[P]) init(ss *ServerSession, req *router.Request, view *requestMeta) {
	r.Session = ss
	if n := len(req.ID); n <= len(r.idBuf) {
		r.id = r.idBuf[:n:n]
		copy(r.id, req.ID)
	} else {
		r.id = bytes.Clone(req.ID)
	}
	if view.Whole { // the walk prepare made found it, or that there is none
		r.token = tokenOf(view.Progress)
	} else {
		r.token = progressToken(req.Params)
	}
}

// ID returns the request's JSON-RPC id as the client sent it.
func (r *ServerRequest[P]) ID() json.RawMessage { return r.id }

// ProgressToken returns the request's _meta.progressToken as sent (a JSON
// string or number), or nil when the client asked for no progress.
func (r *ServerRequest[P]) ProgressToken() json.RawMessage { return r.token }

// Progress tells the client how far the request has got
// (notifications/progress), if it asked with a progress token; otherwise
// it does nothing. progress must grow from one call to the next; total is
// 0 when unknown.
func (r *ServerRequest[P]) Progress(ctx context.Context, progress, total float64, message string) error {
	if r.token == nil {
		return nil
	}
	if r.Session.vlevel < level20250326 {
		message = "" // 2024-11-05's progress has no message
	}
	return r.Session.notify(ctx, "notifications/progress", &ProgressParams{
		ProgressToken: r.token, Progress: progress, Total: total, Message: message,
	})
}

// Log sends a log message about this request to its client; see
// ServerSession.Log.
func (r *ServerRequest[P]) Log(ctx context.Context, level LoggingLevel, logger string, data any) error {
	return r.Session.Log(ctx, &LoggingMessageParams{Level: level, Logger: logger, Data: data})
}

// CloseSSEStream ends the HTTP response whose event stream carries this
// request (Streamable HTTP), while the request goes on: what the handler
// sends from now on, and its result, are kept for the client, which
// resumes the stream with a GET and Last-Event-ID after the retry
// interval the stream announced (streamable.Options.RetryInterval). It is a way
// to spare a long-lived connection (SSE polling). On other transports, or
// once the response has ended, it does nothing; it reports whether a
// response was ended.
func (r *ServerRequest[P]) CloseSSEStream() bool {
	t := r.Session.transport
	return t != nil && r.id != nil && t.CloseStream(r.id)
}

// progressToken finds _meta.progressToken in raw params: decoded only
// when the bytes mention it.
func progressToken(params []byte) json.RawMessage {
	if !bytes.Contains(params, []byte(`progressToken`)) {
		return nil
	}
	var p struct {
		Meta struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if codec.UnmarshalExact(params, &p) != nil {
		return nil
	}
	return tokenOf(p.Meta.Token)
}

// tokenOf is a progress token as a request carries it: nil for none or
// null, else a copy of its JSON.
func tokenOf(t []byte) json.RawMessage {
	if len(t) == 0 || string(t) == "null" {
		return nil
	}
	return bytes.Clone(t)
}
