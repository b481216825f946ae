package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/codec"
)

// Structured output as the client checks it: the output schemas of the
// tools a session listed are kept by tool name, each compiled the first
// time a call of its tool needs it, and a tools/call result is checked
// against its tool's schema before the caller sees it, as the
// specification asks of clients (they SHOULD validate) and as the
// TypeScript SDK does. The schemas are those of the session's latest
// listing: a listing without a cursor starts a new set, a page with one
// adds to it, and notifications/tools/list_changed forgets them until the
// next listing. A tool the session has not listed (or not since the list
// changed) is not checked: the client does not list tools on its own.

// ToolOutputError is the error of a tools/call whose result breaks the
// output schema its tool was listed with: the result has no
// structuredContent (and is not an error result), or its
// structuredContent does not match the schema, or the schema itself
// cannot be used to check it. The result is returned only through
// Result.
type ToolOutputError struct {
	// Tool is the tool's name.
	Tool string
	// Result is the result as the server sent it.
	Result *CallToolResult
	// Err says what is wrong: the first violation the validator found,
	// ErrNoStructuredContent, or why the schema does not compile.
	Err error
}

// ErrNoStructuredContent is ToolOutputError.Err when a tool listed with an
// output schema answered without structuredContent.
var ErrNoStructuredContent = errors.New("the result has no structuredContent")

// Error names the tool and the violation.
func (e *ToolOutputError) Error() string {
	return "mcp: tool " + quote(e.Tool) + ": the result does not match the tool's output schema: " + e.Err.Error()
}

// Unwrap returns Err.
func (e *ToolOutputError) Unwrap() error { return e.Err }

// toolOutputs are the output schemas of a session's listed tools, by
// name. Readers load the map without locking; writers replace it, in
// turn. Safe for concurrent use.
type toolOutputs struct {
	schemas atomic.Pointer[map[string]*outputSchema] // nil: no listing to go by
	mu      sync.Mutex                               // serialises writers
	gen     uint64                                   // list_changed notifications seen; guarded by mu
}

// outputSchema is one tool's output schema as listed, compiled once on
// first use.
type outputSchema struct {
	raw      []byte
	once     sync.Once
	compiled *compiledSchema
	err      error
}

// generation returns the count of list changes seen, to be given to
// listed with the listing requested now.
func (o *toolOutputs) generation() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.gen
}

// listed keeps the output schemas of a page of tools/list, requested when
// the generation was gen: the first page (cursor "") replaces what was
// kept, a later page adds to it. A page requested before the last list
// change is dropped: it may list what no longer is.
func (o *toolOutputs) listed(gen uint64, first bool, tools []*Tool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if gen != o.gen {
		return
	}
	m := map[string]*outputSchema{}
	if old := o.schemas.Load(); old != nil && !first {
		for k, v := range *old {
			m[k] = v
		}
	}
	for _, t := range tools {
		if t == nil {
			continue
		}
		delete(m, t.Name)
		if raw := schemaBytes(t.OutputSchema); raw != nil {
			m[t.Name] = &outputSchema{raw: raw}
		}
	}
	o.schemas.Store(&m)
}

// changed forgets the schemas: the server's tools changed.
func (o *toolOutputs) changed() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.gen++
	o.schemas.Store(nil)
}

// lookup returns the output schema name was listed with, or nil.
func (o *toolOutputs) lookup(name string) *outputSchema {
	if m := o.schemas.Load(); m != nil {
		return (*m)[name]
	}
	return nil
}

// schemaBytes returns a listed tool's schema as JSON, or nil when there is
// none (absent or null).
func schemaBytes(s any) []byte {
	raw, err := valueJSON(s)
	if err != nil || len(raw) == 0 || codec.KindOf(raw) == codec.ValueNull {
		return nil
	}
	return raw
}

// valueJSON returns v as JSON: v itself when it is raw JSON (as a decoded
// tool or result holds it), else encoded; nil for nil.
func valueJSON(v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return v, nil
	}
	return codec.AppendValue(nil, v)
}

// check returns a *ToolOutputError when r, the result of a call of tool,
// breaks the schema. Error results are not checked.
func (s *outputSchema) check(tool string, r *CallToolResult) error {
	if r.IsError {
		return nil
	}
	s.once.Do(func() {
		s.compiled, s.err = compileSchema(s.raw)
		if s.err != nil {
			s.err = fmt.Errorf("the output schema does not compile: %w", s.err)
		}
	})
	err := s.err
	if err == nil {
		err = s.compiled.validateOutput(r.StructuredContent)
	}
	if err != nil {
		return &ToolOutputError{Tool: tool, Result: r, Err: err}
	}
	return nil
}

// validateOutput checks a result's structured content: raw JSON as
// decoded, or any value that encodes to JSON.
func (c *compiledSchema) validateOutput(sc any) error {
	if sc == nil {
		return ErrNoStructuredContent
	}
	raw, err := valueJSON(sc)
	if err != nil {
		return err
	}
	return c.validate(raw)
}
