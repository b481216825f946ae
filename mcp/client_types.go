package mcp

import (
	"encoding/json"

	"github.com/mcpwire/mcpwire/codec"
)

// Types of the requests a server sends to its client: sampling,
// elicitation and roots.

// CreateMessageParams are the params of sampling/createMessage.
type CreateMessageParams struct {
	Meta             Meta               `json:"_meta,omitempty"`
	Messages         []*SamplingMessage `json:"messages"`
	ModelPreferences *ModelPreferences  `json:"modelPreferences,omitempty"`
	SystemPrompt     string             `json:"systemPrompt,omitempty"`
	// IncludeContext is "none", "thisServer" or "allServers".
	IncludeContext string         `json:"includeContext,omitempty"`
	Temperature    *float64       `json:"temperature,omitempty"`
	MaxTokens      int            `json:"maxTokens"`
	StopSequences  []string       `json:"stopSequences,omitempty"`
	Metadata       map[string]any `json:"metadata,omitempty"`
	Tools          []*Tool        `json:"tools,omitempty"`
	ToolChoice     *ToolChoice    `json:"toolChoice,omitempty"`
}

// ToolChoice says whether the model may, must or must not use tools:
// Mode "auto", "required" or "none".
type ToolChoice struct {
	Mode string `json:"mode,omitempty"`
}

// ModelPreferences guide the client's choice of a model.
type ModelPreferences struct {
	Hints                []ModelHint `json:"hints,omitempty"`
	CostPriority         *float64    `json:"costPriority,omitempty"`
	SpeedPriority        *float64    `json:"speedPriority,omitempty"`
	IntelligencePriority *float64    `json:"intelligencePriority,omitempty"`
}

// ModelHint suggests a model by (part of) its name.
type ModelHint struct {
	Name string `json:"name,omitempty"`
}

// SamplingMessage is one message of a sampling conversation. Content holds
// one block or several (2025-11-25 allows an array); it is encoded as one
// block when it has exactly one.
type SamplingMessage struct {
	Role    Role
	Content []Content
	Meta    Meta
}

type wireSamplingMessage struct {
	Role    Role            `json:"role"`
	Content json.RawMessage `json:"content"`
	Meta    Meta            `json:"_meta,omitempty"`
}

// MarshalJSON encodes the message.
func (m *SamplingMessage) MarshalJSON() ([]byte, error) {
	c, err := marshalContents(m.Content)
	if err != nil {
		return nil, err
	}
	return codec.AppendValue(nil, &wireSamplingMessage{m.Role, c, m.Meta})
}

// marshalContents encodes one block alone, any other number as an array.
func marshalContents(c []Content) (json.RawMessage, error) {
	if len(c) == 1 {
		return c[0].MarshalJSON()
	}
	return codec.AppendValue(nil, nonNilContent(c))
}

// UnmarshalJSON decodes the message; its content may be one block or an
// array of them.
func (m *SamplingMessage) UnmarshalJSON(data []byte) error {
	var w wireSamplingMessage
	if err := codec.UnmarshalExact(data, &w); err != nil {
		return err
	}
	c, err := unmarshalContents(w.Content)
	*m = SamplingMessage{Role: w.Role, Content: c, Meta: w.Meta}
	return err
}

// unmarshalContents decodes one content block or an array of them.
func unmarshalContents(raw json.RawMessage) ([]Content, error) {
	for _, b := range raw {
		switch b {
		case ' ', '\t', '\n', '\r':
			continue
		case '[':
			var l contentList
			err := codec.UnmarshalExact(raw, &l)
			return l, err
		}
		break
	}
	if len(raw) == 0 {
		return nil, nil
	}
	c, err := UnmarshalContent(raw)
	if err != nil {
		return nil, err
	}
	return []Content{c}, nil
}

// CreateMessageResult is the result of sampling/createMessage: the
// model's message.
type CreateMessageResult struct {
	Meta    Meta
	Role    Role
	Content []Content
	Model   string
	// StopReason is "endTurn", "stopSequence", "maxTokens", "toolUse" or
	// another reason the client gives.
	StopReason string
}

type wireCreateMessageResult struct {
	Meta       Meta            `json:"_meta,omitempty"`
	Role       Role            `json:"role"`
	Content    json.RawMessage `json:"content"`
	Model      string          `json:"model"`
	StopReason string          `json:"stopReason,omitempty"`
}

// MarshalJSON encodes the result (one content block alone, several as an
// array).
func (r *CreateMessageResult) MarshalJSON() ([]byte, error) {
	c, err := marshalContents(r.Content)
	if err != nil {
		return nil, err
	}
	return codec.AppendValue(nil, &wireCreateMessageResult{r.Meta, r.Role, c, r.Model, r.StopReason})
}

// UnmarshalJSON decodes the result.
func (r *CreateMessageResult) UnmarshalJSON(data []byte) error {
	var w wireCreateMessageResult
	if err := codec.UnmarshalExact(data, &w); err != nil {
		return err
	}
	c, err := unmarshalContents(w.Content)
	*r = CreateMessageResult{Meta: w.Meta, Role: w.Role, Content: c, Model: w.Model, StopReason: w.StopReason}
	return err
}

// ElicitParams are the params of elicitation/create. In form mode (Mode ""
// or "form") RequestedSchema is a flat object schema of primitive
// properties (any value that encodes to one: raw JSON, a map, a
// *jsonschema.Schema); in URL mode ("url") the client opens URL.
type ElicitParams struct {
	Meta            Meta   `json:"_meta,omitempty"`
	Mode            string `json:"mode,omitempty"`
	Message         string `json:"message"`
	RequestedSchema any    `json:"requestedSchema,omitempty"`
	ElicitationID   string `json:"elicitationId,omitempty"`
	URL             string `json:"url,omitempty"`
}

// ElicitResult is the result of elicitation/create: Action is "accept",
// "decline" or "cancel"; Content holds the accepted values.
type ElicitResult struct {
	Meta    Meta           `json:"_meta,omitempty"`
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// ListRootsResult is the result of roots/list.
type ListRootsResult struct {
	Meta  Meta    `json:"_meta,omitempty"`
	Roots []*Root `json:"roots"`
}

// Root is a directory or file the client lets the server work in; URI is
// a file:// URI.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
	Meta Meta   `json:"_meta,omitempty"`
}
