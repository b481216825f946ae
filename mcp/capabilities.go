package mcp

// ClientCapabilities are what a client declares at initialize. A nil
// member is a capability the client lacks; an empty non-nil map is one
// declared as {}.
type ClientCapabilities struct {
	Experimental map[string]any         `json:"experimental,omitzero"`
	Roots        *RootsCapability       `json:"roots,omitempty"`
	Sampling     *SamplingCapability    `json:"sampling,omitempty"`
	Elicitation  *ElicitationCapability `json:"elicitation,omitempty"`
	Tasks        map[string]any         `json:"tasks,omitzero"`
	// Extensions are the extensions the client supports (2026-07-28), by
	// identifier, each with its settings ({} for none), such as
	// TasksExtension.
	Extensions map[string]any `json:"extensions,omitzero"`
}

// RootsCapability says a client offers roots/list.
type RootsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// SamplingCapability says a client serves sampling/createMessage.
type SamplingCapability struct {
	Context map[string]any `json:"context,omitzero"`
	Tools   map[string]any `json:"tools,omitzero"`
}

// ElicitationCapability says a client serves elicitation/create. A client
// that declares it with neither member supports form mode.
type ElicitationCapability struct {
	Form map[string]any `json:"form,omitzero"`
	URL  map[string]any `json:"url,omitzero"`
}

// ServerCapabilities are what a server declares in its initialize result.
// A nil member is a capability the server lacks.
type ServerCapabilities struct {
	Experimental map[string]any         `json:"experimental,omitzero"`
	Logging      *LoggingCapability     `json:"logging,omitempty"`
	Completions  *CompletionsCapability `json:"completions,omitempty"`
	Prompts      *PromptsCapability     `json:"prompts,omitempty"`
	Resources    *ResourcesCapability   `json:"resources,omitempty"`
	Tools        *ToolsCapability       `json:"tools,omitempty"`
	Tasks        map[string]any         `json:"tasks,omitzero"`
	// Extensions are the extensions the server supports (2026-07-28), by
	// identifier, each with its settings ({} for none); under 2026-07-28
	// a server with tasks declares TasksExtension here.
	Extensions map[string]any `json:"extensions,omitzero"`
}

// LoggingCapability says a server sends notifications/message and serves
// logging/setLevel.
type LoggingCapability struct{}

// CompletionsCapability says a server serves completion/complete.
type CompletionsCapability struct{}

// PromptsCapability says a server serves prompts/list and prompts/get.
type PromptsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourcesCapability says a server serves resources/list, read and
// templates/list, and subscriptions when Subscribe is set.
type ResourcesCapability struct {
	Subscribe   bool `json:"subscribe,omitempty"`
	ListChanged bool `json:"listChanged,omitempty"`
}

// ToolsCapability says a server serves tools/list and tools/call.
type ToolsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}
