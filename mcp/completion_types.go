package mcp

// CompleteParams are the params of completion/complete.
type CompleteParams struct {
	Meta     Meta             `json:"_meta,omitempty"`
	Ref      *CompleteRef     `json:"ref"`
	Argument CompleteArgument `json:"argument"`
	Context  *CompleteContext `json:"context,omitempty"`
}

// CompleteRef names what is being completed: a prompt (Type "ref/prompt",
// Name) or a resource template (Type "ref/resource", URI: the template).
type CompleteRef struct {
	Type  string `json:"type"`
	Name  string `json:"name,omitempty"`
	Title string `json:"title,omitempty"`
	URI   string `json:"uri,omitempty"`
}

// Reference types of CompleteRef.
const (
	RefPrompt   = "ref/prompt"
	RefResource = "ref/resource"
)

// CompleteArgument is the argument being completed and what was typed so
// far.
type CompleteArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CompleteContext holds the arguments already resolved.
type CompleteContext struct {
	Arguments map[string]string `json:"arguments,omitempty"`
}

// CompleteResult is the result of completion/complete.
type CompleteResult struct {
	Meta       Meta             `json:"_meta,omitempty"`
	Completion CompletionValues `json:"completion"`
}

// CompletionValues are the suggestions: at most 100 values, Total the
// number available (0: unknown), HasMore whether there are more.
type CompletionValues struct {
	Values  []string `json:"values"`
	Total   int      `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitempty"`
}
