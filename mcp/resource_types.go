package mcp

import (
	"encoding/json"

	"github.com/mcpwire/mcpwire/codec"
)

// Resource is a piece of context a server offers, named by its URI.
type Resource struct {
	URI         string       `json:"uri"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Size        *int64       `json:"size,omitempty"` // bytes, before any encoding
	Icons       []Icon       `json:"icons,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
	// Scopes are the OAuth scopes a caller's access token must grant for
	// resources/read, resources/subscribe and resources/unsubscribe of this URI: checked before the handler runs (see Server.RequiredScopes);
	// never sent to clients. Nil: none beyond ServerOptions.MethodScopes.
	Scopes []string `json:"-"`
}

// ResourceTemplate describes resources whose URIs follow an RFC 6570
// template, such as "file:///{path}".
type ResourceTemplate struct {
	URITemplate string       `json:"uriTemplate"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
	// Scopes are the OAuth scopes a caller's access token must grant for
	// resources/read, resources/subscribe and resources/unsubscribe of a URI the template matches (unless a Resource of that URI is registered: its Scopes count): checked before the handler runs (see Server.RequiredScopes);
	// never sent to clients. Nil: none beyond ServerOptions.MethodScopes.
	Scopes []string `json:"-"`
}

// ResourceContents is what reading a resource gives: text, or bytes (a
// blob, base64 on the wire). A non-nil Blob makes it a blob; otherwise it
// is text, possibly empty.
type ResourceContents struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
	Meta     Meta
}

type wireResourceContents struct {
	URI      string  `json:"uri"`
	MIMEType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     *[]byte `json:"blob,omitempty"`
	Meta     Meta    `json:"_meta,omitempty"`
}

// MarshalJSON encodes c with either "text" or "blob".
func (c *ResourceContents) MarshalJSON() ([]byte, error) {
	w := wireResourceContents{URI: c.URI, MIMEType: c.MIMEType, Meta: c.Meta}
	if c.Blob != nil {
		w.Blob = &c.Blob
	} else {
		w.Text = &c.Text
	}
	return codec.AppendValue(nil, &w)
}

// UnmarshalJSON decodes text or blob contents.
func (c *ResourceContents) UnmarshalJSON(data []byte) error {
	var w struct {
		URI      string          `json:"uri"`
		MIMEType string          `json:"mimeType"`
		Text     string          `json:"text"`
		Blob     json.RawMessage `json:"blob"`
		Meta     Meta            `json:"_meta"`
	}
	if err := codec.UnmarshalExact(data, &w); err != nil {
		return err
	}
	*c = ResourceContents{URI: w.URI, MIMEType: w.MIMEType, Text: w.Text, Meta: w.Meta}
	if w.Blob != nil {
		c.Blob = []byte{}
		if err := codec.UnmarshalExact(w.Blob, &c.Blob); err != nil {
			return err
		}
	}
	return nil
}

// ListResourcesParams are the params of resources/list.
type ListResourcesParams struct {
	Meta   Meta   `json:"_meta,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// ListResourcesResult is the result of resources/list.
type ListResourcesResult struct {
	Meta       Meta        `json:"_meta,omitempty"`
	Resources  []*Resource `json:"resources"`
	NextCursor string      `json:"nextCursor,omitempty"`
	// TTLMs and CacheScope are the cache hints of protocol version
	// 2026-07-28 (see CachingOptions): how many milliseconds the result
	// stays fresh (nil: 0) and who may share it. Absent under the older
	// versions.
	TTLMs      *int64     `json:"ttlMs,omitempty"`
	CacheScope CacheScope `json:"cacheScope,omitempty"`
}

// ListResourceTemplatesParams are the params of resources/templates/list.
type ListResourceTemplatesParams = ListResourcesParams

// ListResourceTemplatesResult is the result of resources/templates/list.
type ListResourceTemplatesResult struct {
	Meta              Meta                `json:"_meta,omitempty"`
	ResourceTemplates []*ResourceTemplate `json:"resourceTemplates"`
	NextCursor        string              `json:"nextCursor,omitempty"`
	// TTLMs and CacheScope are the cache hints of protocol version
	// 2026-07-28 (see CachingOptions): how many milliseconds the result
	// stays fresh (nil: 0) and who may share it. Absent under the older
	// versions.
	TTLMs      *int64     `json:"ttlMs,omitempty"`
	CacheScope CacheScope `json:"cacheScope,omitempty"`
}

// ReadResourceParams are the params of resources/read.
type ReadResourceParams struct {
	Meta Meta   `json:"_meta,omitempty"`
	URI  string `json:"uri"`
	// Vars holds the values of a resource template's variables
	// (percent-decoded), set by the server when the URI matched a
	// template. Not on the wire.
	Vars map[string]string `json:"-"`
}

// ReadResourceResult is the result of resources/read.
type ReadResourceResult struct {
	Meta     Meta                `json:"_meta,omitempty"`
	Contents []*ResourceContents `json:"contents"`
	// TTLMs and CacheScope are the cache hints of protocol version
	// 2026-07-28 (see CachingOptions): how many milliseconds the result
	// stays fresh (nil: 0) and who may share it. A ResourceHandler may
	// set either for its read; the server's hint fills in the other.
	// Absent under the older versions (the server drops them there).
	TTLMs      *int64     `json:"ttlMs,omitempty"`
	CacheScope CacheScope `json:"cacheScope,omitempty"`
}

// SubscribeParams are the params of resources/subscribe and
// resources/unsubscribe.
type SubscribeParams struct {
	Meta Meta   `json:"_meta,omitempty"`
	URI  string `json:"uri"`
}

// ResourceUpdatedParams are the params of notifications/resources/updated.
type ResourceUpdatedParams struct {
	Meta Meta   `json:"_meta,omitempty"`
	URI  string `json:"uri"`
}
