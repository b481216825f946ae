package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/unsafex"
)

// Content is one content block of a tool result, a prompt message or a
// sampling message: *TextContent, *ImageContent, *AudioContent,
// *ResourceLink or *EmbeddedResource (and, in sampling only,
// *ToolUseContent and *ToolResultContent). Each encodes with its "type"
// member; the set is closed.
type Content interface {
	json.Marshaler
	contentType() string
}

// TextContent is a block of text.
type TextContent struct {
	Text        string
	Annotations *Annotations
	Meta        Meta
}

// ImageContent is an image; Data holds its bytes (base64 on the wire).
type ImageContent struct {
	Data        []byte
	MIMEType    string
	Annotations *Annotations
	Meta        Meta
}

// AudioContent is a sound; Data holds its bytes (base64 on the wire).
type AudioContent struct {
	Data        []byte
	MIMEType    string
	Annotations *Annotations
	Meta        Meta
}

// ResourceLink points at a resource the client may read or subscribe to;
// it need not appear in resources/list.
type ResourceLink struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Size        *int64
	Icons       []Icon
	Annotations *Annotations
	Meta        Meta
}

// EmbeddedResource carries a resource's contents inline.
type EmbeddedResource struct {
	Resource    *ResourceContents
	Annotations *Annotations
	Meta        Meta
}

// ToolUseContent is a model's request to call a tool, in sampling.
type ToolUseContent struct {
	ID    string
	Name  string
	Input json.RawMessage // a JSON object
	Meta  Meta
}

// ToolResultContent is the result of a tool use, in sampling.
type ToolResultContent struct {
	ToolUseID         string
	Content           []Content
	StructuredContent json.RawMessage
	IsError           bool
	Meta              Meta
}

func (*TextContent) contentType() string       { return "text" }
func (*ImageContent) contentType() string      { return "image" }
func (*AudioContent) contentType() string      { return "audio" }
func (*ResourceLink) contentType() string      { return "resource_link" }
func (*EmbeddedResource) contentType() string  { return "resource" }
func (*ToolUseContent) contentType() string    { return "tool_use" }
func (*ToolResultContent) contentType() string { return "tool_result" }

// The wire forms. Each content type encodes through its own, with the
// "type" member first.
type (
	wireText struct {
		Type        string       `json:"type"`
		Text        string       `json:"text"`
		Annotations *Annotations `json:"annotations,omitempty"`
		Meta        Meta         `json:"_meta,omitempty"`
	}
	wireMedia struct {
		Type        string       `json:"type"`
		Data        []byte       `json:"data"`
		MIMEType    string       `json:"mimeType"`
		Annotations *Annotations `json:"annotations,omitempty"`
		Meta        Meta         `json:"_meta,omitempty"`
	}
	wireLink struct {
		Type        string       `json:"type"`
		URI         string       `json:"uri"`
		Name        string       `json:"name"`
		Title       string       `json:"title,omitempty"`
		Description string       `json:"description,omitempty"`
		MIMEType    string       `json:"mimeType,omitempty"`
		Size        *int64       `json:"size,omitempty"`
		Icons       []Icon       `json:"icons,omitempty"`
		Annotations *Annotations `json:"annotations,omitempty"`
		Meta        Meta         `json:"_meta,omitempty"`
	}
	wireEmbedded struct {
		Type        string            `json:"type"`
		Resource    *ResourceContents `json:"resource"`
		Annotations *Annotations      `json:"annotations,omitempty"`
		Meta        Meta              `json:"_meta,omitempty"`
	}
	wireToolUse struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
		Meta  Meta            `json:"_meta,omitempty"`
	}
	wireToolResult struct {
		Type              string          `json:"type"`
		ToolUseID         string          `json:"toolUseId"`
		Content           contentList     `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
		IsError           bool            `json:"isError,omitempty"`
		Meta              Meta            `json:"_meta,omitempty"`
	}
)

// MarshalJSON encodes c with "type":"text". The common block (no
// annotations, no _meta) is laid out by hand.
func (c *TextContent) MarshalJSON() ([]byte, error) {
	if c.plain() {
		return c.appendPlain(make([]byte, 0, len(c.Text)+32)), nil
	}
	return codec.AppendValue(nil, &wireText{"text", c.Text, c.Annotations, c.Meta})
}

// plain reports whether c is the common block: no annotations, no _meta.
func (c *TextContent) plain() bool { return c.Annotations == nil && c.Meta == nil }

// appendPlain appends c, a plain block, as MarshalJSON lays it out.
func (c *TextContent) appendPlain(b []byte) []byte {
	b = append(b, `{"type":"text","text":`...)
	return append(codec.AppendString(b, c.Text), '}')
}

// MarshalJSON encodes c with "type":"image".
func (c *ImageContent) MarshalJSON() ([]byte, error) {
	return codec.AppendValue(nil, &wireMedia{"image", nonNilBytes(c.Data), c.MIMEType, c.Annotations, c.Meta})
}

// MarshalJSON encodes c with "type":"audio".
func (c *AudioContent) MarshalJSON() ([]byte, error) {
	return codec.AppendValue(nil, &wireMedia{"audio", nonNilBytes(c.Data), c.MIMEType, c.Annotations, c.Meta})
}

// MarshalJSON encodes c with "type":"resource_link".
func (c *ResourceLink) MarshalJSON() ([]byte, error) {
	return codec.AppendValue(nil, &wireLink{"resource_link", c.URI, c.Name, c.Title, c.Description, c.MIMEType, c.Size, c.Icons, c.Annotations, c.Meta})
}

// MarshalJSON encodes c with "type":"resource".
func (c *EmbeddedResource) MarshalJSON() ([]byte, error) {
	if c.Resource == nil {
		return nil, errors.New("mcp: EmbeddedResource without a Resource")
	}
	return codec.AppendValue(nil, &wireEmbedded{"resource", c.Resource, c.Annotations, c.Meta})
}

// MarshalJSON encodes c with "type":"tool_use".
func (c *ToolUseContent) MarshalJSON() ([]byte, error) {
	in := c.Input
	if len(in) == 0 {
		in = json.RawMessage("{}")
	}
	return codec.AppendValue(nil, &wireToolUse{"tool_use", c.ID, c.Name, in, c.Meta})
}

// MarshalJSON encodes c with "type":"tool_result".
func (c *ToolResultContent) MarshalJSON() ([]byte, error) {
	return codec.AppendValue(nil, &wireToolResult{"tool_result", c.ToolUseID, nonNilContent(c.Content), c.StructuredContent, c.IsError, c.Meta})
}

func nonNilBytes(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func nonNilContent(c []Content) contentList {
	if c == nil {
		return contentList{}
	}
	return c
}

// ErrUnknownContent is returned when decoding a content block whose type
// is not one of MCP's.
var ErrUnknownContent = errors.New("mcp: unknown content type")

// UnmarshalContent decodes one content block, choosing its Go type by its
// "type" member. data must be valid JSON (decoded by sonic).
func UnmarshalContent(data []byte) (Content, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := codec.UnmarshalExact(data, &head); err != nil {
		return nil, err
	}
	switch head.Type {
	case "text":
		var w wireText
		err := codec.UnmarshalExact(data, &w)
		return &TextContent{w.Text, w.Annotations, w.Meta}, err
	case "image", "audio":
		var w wireMedia
		if err := codec.UnmarshalExact(data, &w); err != nil {
			return nil, err
		}
		if head.Type == "image" {
			return &ImageContent{w.Data, w.MIMEType, w.Annotations, w.Meta}, nil
		}
		return &AudioContent{w.Data, w.MIMEType, w.Annotations, w.Meta}, nil
	case "resource_link":
		var w wireLink
		err := codec.UnmarshalExact(data, &w)
		return &ResourceLink{w.URI, w.Name, w.Title, w.Description, w.MIMEType, w.Size, w.Icons, w.Annotations, w.Meta}, err
	case "resource":
		var w wireEmbedded
		err := codec.UnmarshalExact(data, &w)
		return &EmbeddedResource{w.Resource, w.Annotations, w.Meta}, err
	case "tool_use":
		var w wireToolUse
		err := codec.UnmarshalExact(data, &w)
		return &ToolUseContent{w.ID, w.Name, w.Input, w.Meta}, err
	case "tool_result":
		var w wireToolResult
		err := codec.UnmarshalExact(data, &w)
		return &ToolResultContent{w.ToolUseID, w.Content, w.StructuredContent, w.IsError, w.Meta}, err
	}
	return nil, errors.Join(ErrUnknownContent, errors.New("type "+strconv.Quote(head.Type)))
}

// contentList is a []Content that decodes each block by its type.
type contentList []Content

// UnmarshalJSON decodes a JSON array of content blocks.
func (l *contentList) UnmarshalJSON(data []byte) error {
	var raws []json.RawMessage
	if err := codec.UnmarshalExact(data, &raws); err != nil {
		return err
	}
	out := make(contentList, 0, len(raws))
	for _, r := range raws {
		c, err := UnmarshalContent(r)
		if err != nil {
			return err
		}
		out = append(out, c)
	}
	*l = out
	return nil
}

// decodeTextBlocks decodes a JSON array of text blocks that have only
// "type" and "text" members, all blocks in one allocation: a single block
// (the usual result) in one, or a new oneTextBlock if one is nil. It
// reports false for any other array. With owned (see decodeOwned), texts
// without escapes are d's bytes, not copies.
func decodeTextBlocks(d []byte, owned bool, one *oneTextBlock) ([]Content, bool) {
	n := 0
	var it codec.Elements
	for it.Reset(d); it.Next(); {
		n++
	}
	if it.Err() != nil {
		return nil, false
	}
	var blocks []TextContent
	var out []Content
	if n == 1 {
		if one == nil {
			one = new(oneTextBlock)
		}
		blocks, out = one.block[:], one.list[:]
	} else {
		blocks, out = make([]TextContent, n), make([]Content, n)
	}
	i := 0
	for it.Reset(d); it.Next(); i++ {
		if codec.KindOf(it.Value()) != codec.ValueObject || !blocks[i].decodePlain(it.Value(), owned) {
			return nil, false
		}
		out[i] = &blocks[i]
	}
	return out, true
}

// oneTextBlock holds a list of one text block and the block.
type oneTextBlock struct {
	list  [1]Content
	block [1]TextContent
}

// decodePlain decodes the object d into c if it is a text block with
// only "type" and "text" members, and reports whether it was. With owned,
// the text aliases d (or Unquote's fresh copy).
func (c *TextContent) decodePlain(d []byte, owned bool) bool {
	isText := false
	var it codec.Members
	for it.Reset(d); it.Next(); {
		if it.KeyEscaped() {
			return false
		}
		v := it.Value()
		switch string(it.Name(nil)) {
		case "type":
			isText = string(v) == `"text"`
		case "text":
			if codec.KindOf(v) != codec.ValueString {
				return false
			}
			text := v[1 : len(v)-1] // a string token the Scanner validated, compact
			if bytes.IndexByte(text, '\\') >= 0 {
				var err error
				if text, err = codec.Unquote(v); err != nil {
					return false
				}
			}
			if owned {
				c.Text = unsafex.String(text) // d is never written again (decodeOwned)
			} else {
				c.Text = string(text)
			}
		default:
			return false
		}
	}
	return isText && it.Err() == nil
}

// contentOne is one Content that decodes by its type.
type contentOne struct{ Content }

// UnmarshalJSON decodes one content block.
func (c *contentOne) UnmarshalJSON(data []byte) error {
	x, err := UnmarshalContent(data)
	c.Content = x
	return err
}

// MarshalJSON encodes the block.
func (c contentOne) MarshalJSON() ([]byte, error) {
	if c.Content == nil {
		return nil, errors.New("mcp: nil content")
	}
	return c.Content.MarshalJSON()
}

func quote(s string) string { return strconv.Quote(s) }
