package mcp

import (
	"bytes"
	"encoding/json"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/unsafex"
)

// Tool describes a tool a server offers: its name, what it does, and the
// JSON Schemas of its arguments and of its structured output.
//
// InputSchema and OutputSchema may be a *jsonschema.Schema, raw JSON
// (json.RawMessage, codec.Raw or []byte: served as given, byte for byte
// once compacted), or any other value that encodes to a schema object. Left
// nil, AddTool infers them from its handler's Go types; Server.AddTool
// serves {"type":"object"} for a nil InputSchema. A decoded Tool (a client
// listing a server's tools) holds them as json.RawMessage.
type Tool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	Icons        []Icon           `json:"icons,omitempty"`
	InputSchema  any              `json:"inputSchema"`
	OutputSchema any              `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Execution    *ToolExecution   `json:"execution,omitempty"`
	Meta         Meta             `json:"_meta,omitempty"`
	// Scopes are the OAuth scopes a caller's access token must grant for
	// tools/call of this tool: checked before the handler runs (see Server.RequiredScopes);
	// never sent to clients. Nil: none beyond ServerOptions.MethodScopes.
	Scopes []string `json:"-"`
}

// UnmarshalJSON decodes a tool, keeping its schemas as raw JSON.
func (t *Tool) UnmarshalJSON(data []byte) error {
	type plain Tool
	var w struct {
		plain
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := codec.UnmarshalExact(data, &w); err != nil {
		return err
	}
	*t = Tool(w.plain)
	if w.InputSchema != nil {
		t.InputSchema = w.InputSchema
	}
	if w.OutputSchema != nil {
		t.OutputSchema = w.OutputSchema
	}
	return nil
}

// ToolAnnotations are hints about a tool's behaviour. Clients must treat
// them as untrusted unless they trust the server.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"` // nil: true
	IdempotentHint  bool   `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"` // nil: true
}

// ToolExecution says how a tool may be run: TaskSupport is "forbidden"
// (the default), "optional" or "required".
type ToolExecution struct {
	TaskSupport string `json:"taskSupport,omitempty"`
}

// Values of ToolExecution.TaskSupport.
const (
	TaskSupportForbidden = "forbidden"
	TaskSupportOptional  = "optional"
	TaskSupportRequired  = "required"
)

// ListToolsParams are the params of tools/list.
type ListToolsParams struct {
	Meta   Meta   `json:"_meta,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// ListToolsResult is the result of tools/list.
type ListToolsResult struct {
	Meta       Meta    `json:"_meta,omitempty"`
	Tools      []*Tool `json:"tools"`
	NextCursor string  `json:"nextCursor,omitempty"`
	// TTLMs and CacheScope are the cache hints of protocol version
	// 2026-07-28 (see CachingOptions): how many milliseconds the result
	// stays fresh (nil: 0) and who may share it. Absent under the older
	// versions.
	TTLMs      *int64     `json:"ttlMs,omitempty"`
	CacheScope CacheScope `json:"cacheScope,omitempty"`
}

// CallToolParams are the params of tools/call. Arguments is the raw
// arguments object (nil when absent). Task, when set, asks for the call to
// run as a task (2025-11-25): the answer is then a CreateTaskResult.
type CallToolParams struct {
	Meta      Meta            `json:"_meta,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Task      *TaskMetadata   `json:"task,omitempty"`
}

// decodeCommon decodes params holding only a name without escapes, an
// object of arguments and a _meta of the engine's keys alone (a
// stateless call's; see dropEngineMeta) from their view, made by one walk
// over them, and reports false, leaving p alone, for anything else (which
// sonic then decodes, to the same value less the engine's keys of _meta).
func (p *CallToolParams) decodeCommon(view *requestMeta) bool {
	if view.Uncommon || view.Others {
		return false
	}
	*p = CallToolParams{}
	if n := view.Name; n != nil {
		p.Name = string(n[1 : len(n)-1])
	}
	if view.Args != nil {
		p.Arguments = bytes.Clone(view.Args)
	}
	return true
}

// CallToolResult is the result of tools/call. A tool that failed in a way
// the model may correct sets IsError and says why in Content; protocol
// failures are JSON-RPC errors instead.
//
// StructuredContent, when set, is a JSON object conforming to the tool's
// output schema: any value that encodes to one (a decoded result holds a
// json.RawMessage).
type CallToolResult struct {
	Meta              Meta      `json:"_meta,omitempty"`
	Content           []Content `json:"content"`
	StructuredContent any       `json:"structuredContent,omitempty"`
	IsError           bool      `json:"isError,omitempty"`
}

// UnmarshalJSON decodes a result, each content block by its type. data
// must be valid JSON (decoded by sonic).
func (r *CallToolResult) UnmarshalJSON(data []byte) error {
	if r.decodeCommon(data, false, nil) {
		return nil
	}
	return r.decodeSlow(data)
}

// decodeOwned is UnmarshalJSON over data that is the result's alone — a
// call's answer, copied for it and dropped after — whose texts and
// structured content may therefore alias data instead of copying it.
func (r *CallToolResult) decodeOwned(data []byte) error { return r.decodeOwnedInto(data, nil) }

// decodeOwnedInto is decodeOwned with a single text block decoded into
// one (nil: a new one; see decodeTextBlocks).
func (r *CallToolResult) decodeOwnedInto(data []byte, one *oneTextBlock) error {
	if r.decodeCommon(data, true, one) {
		return nil
	}
	return r.decodeSlow(data)
}

// decodeCommon decodes the common result in one walk over data: text
// blocks without annotations or _meta, isError, and structured content
// that is an object. It reports false, leaving r alone, for anything
// else; decodeSlow then decodes it, to the same value where both can
// (tool_decode_test.go holds them to it). A single text block goes into
// one (nil: a new one; see decodeTextBlocks).
func (r *CallToolResult) decodeCommon(data []byte, owned bool, one *oneTextBlock) bool {
	if r.decodeOneText(data, owned, one) {
		return true
	}
	var res CallToolResult
	var it codec.Members
	for it.Reset(data); it.Next(); {
		if it.KeyEscaped() {
			return false
		}
		v := it.Value()
		switch string(it.Name(nil)) {
		case "content":
			c, ok := decodeTextBlocks(v, owned, one)
			if !ok {
				return false
			}
			res.Content = c
		case "isError":
			k := codec.KindOf(v)
			if !k.IsBool() {
				return false
			}
			res.IsError = k == codec.ValueTrue
		case "structuredContent":
			if codec.KindOf(v) != codec.ValueObject {
				return false
			}
			if owned {
				res.StructuredContent = json.RawMessage(v[:len(v):len(v)])
			} else {
				res.StructuredContent = json.RawMessage(bytes.Clone(v))
			}
		default:
			return false
		}
	}
	if it.Err() != nil {
		return false
	}
	*r = res
	return true
}

// The usual result, one text block and nothing else, as commonResult
// writes it (compact, members in this order): textResultHead, the text's
// string token less its opening quote, textResultTail.
const (
	textResultHead = `{"content":[{"type":"text","text":"`
	textResultTail = `}]}`
)

// decodeOneText is decodeCommon for data that is exactly the usual result
// with a text without escapes, read by its bytes with one scan of the
// text; it reports false, leaving r alone, for anything else. The block
// goes into one (nil: a new one).
func (r *CallToolResult) decodeOneText(data []byte, owned bool, one *oneTextBlock) bool {
	const n = len(textResultHead)
	if len(data) < n+len(textResultTail) || string(data[:n]) != textResultHead {
		return false
	}
	end, err := codec.SkipValue(data, n-1) // the text's string token
	if err != nil || string(data[end:]) != textResultTail {
		return false
	}
	text := data[n : end-1]
	if bytes.IndexByte(text, '\\') >= 0 {
		return false // escapes: decodePlain unescapes them
	}
	if one == nil {
		one = new(oneTextBlock)
	}
	if owned {
		one.block[0] = TextContent{Text: unsafex.String(text)} // data is never written again (decodeOwned)
	} else {
		one.block[0] = TextContent{Text: string(text)}
	}
	one.list[0] = &one.block[0]
	*r = CallToolResult{Content: one.list[:]}
	return true
}

// decodeSlow decodes any result, each member and block through sonic.
func (r *CallToolResult) decodeSlow(data []byte) error {
	var w struct {
		Meta              Meta            `json:"_meta"`
		Content           contentList     `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	}
	if err := codec.UnmarshalExact(data, &w); err != nil {
		return err
	}
	*r = CallToolResult{Meta: w.Meta, Content: w.Content, IsError: w.IsError}
	if w.StructuredContent != nil {
		r.StructuredContent = w.StructuredContent
	}
	return nil
}
