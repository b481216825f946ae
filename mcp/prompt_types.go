package mcp

import "github.com/mcpwire/mcpwire/codec"

// Prompt describes a prompt template a server offers.
type Prompt struct {
	Name        string            `json:"name"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	Arguments   []*PromptArgument `json:"arguments,omitempty"`
	Icons       []Icon            `json:"icons,omitempty"`
	Meta        Meta              `json:"_meta,omitempty"`
	// Scopes are the OAuth scopes a caller's access token must grant for
	// prompts/get of this prompt: checked before the handler runs (see Server.RequiredScopes);
	// never sent to clients. Nil: none beyond ServerOptions.MethodScopes.
	Scopes []string `json:"-"`
}

// PromptArgument is one argument a prompt takes.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// PromptMessage is one message of a prompt.
type PromptMessage struct {
	Role    Role
	Content Content
}

type wirePromptMessage struct {
	Role    Role       `json:"role"`
	Content contentOne `json:"content"`
}

// MarshalJSON encodes the message.
func (m *PromptMessage) MarshalJSON() ([]byte, error) {
	return codec.AppendValue(nil, &wirePromptMessage{m.Role, contentOne{m.Content}})
}

// UnmarshalJSON decodes the message, its content by its type.
func (m *PromptMessage) UnmarshalJSON(data []byte) error {
	var w wirePromptMessage
	if err := codec.UnmarshalExact(data, &w); err != nil {
		return err
	}
	*m = PromptMessage{Role: w.Role, Content: w.Content.Content}
	return nil
}

// ListPromptsParams are the params of prompts/list.
type ListPromptsParams struct {
	Meta   Meta   `json:"_meta,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// ListPromptsResult is the result of prompts/list.
type ListPromptsResult struct {
	Meta       Meta      `json:"_meta,omitempty"`
	Prompts    []*Prompt `json:"prompts"`
	NextCursor string    `json:"nextCursor,omitempty"`
	// TTLMs and CacheScope are the cache hints of protocol version
	// 2026-07-28 (see CachingOptions): how many milliseconds the result
	// stays fresh (nil: 0) and who may share it. Absent under the older
	// versions.
	TTLMs      *int64     `json:"ttlMs,omitempty"`
	CacheScope CacheScope `json:"cacheScope,omitempty"`
}

// GetPromptParams are the params of prompts/get.
type GetPromptParams struct {
	Meta      Meta              `json:"_meta,omitempty"`
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitempty"`
}

// GetPromptResult is the result of prompts/get.
type GetPromptResult struct {
	Meta        Meta             `json:"_meta,omitempty"`
	Description string           `json:"description,omitempty"`
	Messages    []*PromptMessage `json:"messages"`
}
