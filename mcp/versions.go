package mcp

import (
	"strconv"
	"strings"

	"github.com/mcpwire/mcpwire/codec"
)

// A level is a negotiated protocol version as an ordinal, oldest first, so
// that "the version has this field" is a comparison. Each version's schema
// only adds to the one before (2025-06-18 removed batches, handled apart),
// so what the server sends to a session is what it would send to the
// newest one, less what the session's version does not define:
//
//   - before 2025-03-26: no tool annotations, no audio content, no
//     completions capability, no message in progress notifications;
//   - before 2025-06-18: no title (tools, resources, templates, prompts,
//     prompt arguments, serverInfo), no outputSchema, no
//     structuredContent, no resource_link content, no _meta on list
//     items, content blocks or resource contents, no lastModified in
//     annotations;
//   - before 2025-11-25: no icons, no tool execution, no description or
//     websiteUrl in serverInfo, no tasks capability, no mode in
//     elicitation/create, no _meta, tool use or several content blocks in
//     sampling messages, no tools in sampling/createMessage.
//
// Requests to the client follow the same rules (CreateMessage, Elicit):
// what cannot be left out without changing the request's meaning (tool
// use in sampling, URL mode elicitation, elicitation before 2025-06-18)
// is refused with an error wrapping ErrNotSupported instead. Each
// transform is a function of the value and the level alone (x.at(l)),
// so a version known per request serves as well as one per session.
type level uint8

const (
	level20241105 level = iota
	level20250326
	level20250618
	level20251125
	numLevels
)

// levelOf returns the level of a negotiated version; "" (not negotiated)
// and unknown versions are the newest.
func levelOf(v string) level {
	switch v {
	case Version20241105:
		return level20241105
	case Version20250326:
		return level20250326
	case Version20250618:
		return level20250618
	}
	return level20251125
}

// encodeLevels encodes an item once per level, sharing the bytes of
// levels that encode alike: at encodes the item as level l sees it.
func encodeLevels(at func(l level) any) (out [numLevels][]byte, err error) {
	for l := numLevels - 1; ; l-- {
		b, err := codec.AppendValue(nil, at(l))
		if err != nil {
			return out, err
		}
		if l < numLevels-1 && string(b) == string(out[l+1]) {
			b = out[l+1]
		}
		out[l] = b
		if l == 0 {
			return out, nil
		}
	}
}

// annotationsAt returns a as level l defines it (nil when nothing is left).
func annotationsAt(a *Annotations, l level) *Annotations {
	if a == nil || l >= level20250618 || a.LastModified == "" {
		return a
	}
	if len(a.Audience) == 0 && a.Priority == nil {
		return nil
	}
	c := *a
	c.LastModified = ""
	return &c
}

func (t *Tool) at(l level) *Tool {
	if l >= level20251125 {
		return t
	}
	c := *t
	c.Icons, c.Execution = nil, nil
	if l < level20250618 {
		c.Title, c.OutputSchema, c.Meta = "", nil, nil
	}
	if l < level20250326 {
		c.Annotations = nil
	}
	return &c
}

func (r *Resource) at(l level) *Resource {
	if l >= level20251125 {
		return r
	}
	c := *r
	listedAt(l, &c.Icons, &c.Title, &c.Meta, &c.Annotations)
	return &c
}

func (t *ResourceTemplate) at(l level) *ResourceTemplate {
	if l >= level20251125 {
		return t
	}
	c := *t
	listedAt(l, &c.Icons, &c.Title, &c.Meta, &c.Annotations)
	return &c
}

// listedAt clears, in a copy of a resource or a template, the members
// that level l (older than 2025-11-25) does not define.
func listedAt(l level, icons *[]Icon, title *string, meta *Meta, ann **Annotations) {
	*icons = nil
	if l < level20250618 {
		*title, *meta = "", nil
		*ann = annotationsAt(*ann, l)
	}
}

func (p *Prompt) at(l level) *Prompt {
	if l >= level20251125 {
		return p
	}
	c := *p
	c.Icons = nil
	if l < level20250618 {
		c.Title, c.Meta = "", nil
		if c.Arguments != nil {
			c.Arguments = make([]*PromptArgument, len(p.Arguments))
			for i, a := range p.Arguments {
				b := *a
				b.Title = ""
				c.Arguments[i] = &b
			}
		}
	}
	return &c
}

func (im *Implementation) at(l level) *Implementation {
	if l >= level20251125 {
		return im
	}
	c := *im
	c.Description, c.WebsiteURL, c.Icons = "", "", nil
	if l < level20250618 {
		c.Title = ""
	}
	return &c
}

func (sc *ServerCapabilities) at(l level) *ServerCapabilities {
	if l >= level20251125 || (sc.Tasks == nil && (l >= level20250326 || sc.Completions == nil)) {
		return sc
	}
	c := *sc
	c.Tasks = nil
	if l < level20250326 {
		c.Completions = nil
	}
	return &c
}

// resourceContentsAt returns c as level l defines it.
func resourceContentsAt(c *ResourceContents, l level) *ResourceContents {
	if c == nil || c.Meta == nil || l >= level20250618 {
		return c
	}
	d := *c
	d.Meta = nil
	return &d
}

// contentAt returns a content block as level l defines it: the block
// itself when l defines all of it, else a copy without what l lacks. A
// block of a type l does not have becomes a text block saying what it
// was: a resource_link (before 2025-06-18) its URI, name, title,
// description and MIME type — the client may still read the resource —
// and audio (before 2025-03-26) its MIME type and size, its data left out.
func contentAt(c Content, l level) Content {
	if l >= level20251125 {
		return c
	}
	switch c := c.(type) {
	case *TextContent:
		if l >= level20250618 || (c.Meta == nil && annotationsAt(c.Annotations, l) == c.Annotations) {
			return c
		}
		return &TextContent{Text: c.Text, Annotations: annotationsAt(c.Annotations, l)}
	case *ImageContent:
		if l >= level20250618 || (c.Meta == nil && annotationsAt(c.Annotations, l) == c.Annotations) {
			return c
		}
		return &ImageContent{Data: c.Data, MIMEType: c.MIMEType, Annotations: annotationsAt(c.Annotations, l)}
	case *AudioContent:
		if l < level20250326 {
			return &TextContent{
				Text:        "[audio content omitted (" + c.MIMEType + ", " + strconv.Itoa(len(c.Data)) + " bytes): protocol version 2024-11-05 has no audio]",
				Annotations: annotationsAt(c.Annotations, l),
			}
		}
		if l >= level20250618 || (c.Meta == nil && annotationsAt(c.Annotations, l) == c.Annotations) {
			return c
		}
		return &AudioContent{Data: c.Data, MIMEType: c.MIMEType, Annotations: annotationsAt(c.Annotations, l)}
	case *ResourceLink:
		if l < level20250618 {
			return &TextContent{Text: linkText(c), Annotations: annotationsAt(c.Annotations, l)}
		}
		if c.Icons == nil {
			return c
		}
		d := *c
		d.Icons = nil
		return &d
	case *EmbeddedResource:
		if l >= level20250618 || (c.Meta == nil && annotationsAt(c.Annotations, l) == c.Annotations &&
			resourceContentsAt(c.Resource, l) == c.Resource) {
			return c
		}
		return &EmbeddedResource{Resource: resourceContentsAt(c.Resource, l), Annotations: annotationsAt(c.Annotations, l)}
	}
	return c
}

// linkText is the text that stands for a resource link where the version
// has none: "resource_link: <uri>" and what else the link says, a member
// a line.
func linkText(c *ResourceLink) string {
	var b strings.Builder
	b.WriteString("resource_link: ")
	b.WriteString(c.URI)
	for _, kv := range [...][2]string{{"name", c.Name}, {"title", c.Title}, {"description", c.Description}, {"mimeType", c.MIMEType}} {
		if kv[1] != "" {
			b.WriteString("\n" + kv[0] + ": " + kv[1])
		}
	}
	if c.Size != nil {
		b.WriteString("\nsize: " + strconv.FormatInt(*c.Size, 10))
	}
	return b.String()
}

// contentsAt returns blocks as level l defines them, and whether that
// changed any: blocks itself when nothing changes, else a new slice.
func contentsAt(blocks []Content, l level) ([]Content, bool) {
	if l >= level20251125 {
		return blocks, false
	}
	var out []Content
	for i, c := range blocks {
		d := contentAt(c, l)
		if d != c && out == nil {
			out = make([]Content, len(blocks))
			copy(out, blocks[:i])
		}
		if out != nil {
			out[i] = d
		}
	}
	if out == nil {
		return blocks, false
	}
	return out, true
}

// at returns a finished tool result as level l defines it; r is a copy
// of the handler's, so it may be changed.
func (r *CallToolResult) at(l level) *CallToolResult {
	if l < level20250618 {
		r.StructuredContent = nil // its text mirror stays in Content
	}
	r.Content, _ = contentsAt(r.Content, l)
	return r
}
