package mcp

// Wire types shared by every part of the protocol (schema 2025-11-25).
// They encode and decode with the codec package (sonic); optional members
// are omitted when empty. Values of these types are plain data: safe for
// concurrent reading, not for concurrent modification.

// Meta is the _meta member of params, results and many wire objects:
// reserved by MCP for metadata. Keys with the "modelcontextprotocol.io/"
// or "mcp.dev/" prefixes are reserved for the protocol itself.
type Meta map[string]any

// Role is who speaks a message: RoleUser or RoleAssistant.
type Role string

// Roles of messages.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Icon is an image a client may show for an implementation, a tool, a
// resource or a prompt.
type Icon struct {
	// Src is an HTTP(S) URL or a data: URI.
	Src      string   `json:"src"`
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"` // "48x48", "any"
	Theme    string   `json:"theme,omitempty"` // "light" or "dark"
}

// Implementation names a client or a server: clientInfo and serverInfo of
// initialize.
type Implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

// Annotations tell a client how to use or show an object: who it is for,
// how important it is, when it last changed.
type Annotations struct {
	Audience []Role `json:"audience,omitempty"`
	// Priority runs from 0 (optional) to 1 (required); nil: unset.
	Priority *float64 `json:"priority,omitempty"`
	// LastModified is an ISO 8601 time, e.g. "2025-01-12T15:00:58Z".
	LastModified string `json:"lastModified,omitempty"`
}
