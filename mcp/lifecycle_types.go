package mcp

import "encoding/json"

// InitializeParams are the params of initialize.
type InitializeParams struct {
	Meta            Meta                `json:"_meta,omitempty"`
	ProtocolVersion string              `json:"protocolVersion"`
	Capabilities    *ClientCapabilities `json:"capabilities"`
	ClientInfo      *Implementation     `json:"clientInfo"`
}

// InitializeResult is the result of initialize.
type InitializeResult struct {
	Meta            Meta                `json:"_meta,omitempty"`
	ProtocolVersion string              `json:"protocolVersion"`
	Capabilities    *ServerCapabilities `json:"capabilities"`
	ServerInfo      *Implementation     `json:"serverInfo"`
	Instructions    string              `json:"instructions,omitempty"`
}

// CancelledParams are the params of notifications/cancelled. RequestID is
// the cancelled request's id as sent (a JSON string or number).
type CancelledParams struct {
	Meta      Meta            `json:"_meta,omitempty"`
	RequestID json.RawMessage `json:"requestId,omitempty"`
	Reason    string          `json:"reason,omitempty"`
}

// ProgressParams are the params of notifications/progress. ProgressToken
// is the token of the request the progress is about, as the request gave
// it (a JSON string or number).
type ProgressParams struct {
	Meta          Meta            `json:"_meta,omitempty"`
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         float64         `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
}

// Empty is the result of requests that only acknowledge (ping,
// logging/setLevel, resources/subscribe): an empty object.
type Empty struct{}
