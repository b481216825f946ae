package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// ToolHandler serves calls of one tool. The arguments (req.Params.Arguments)
// have been validated against the tool's input schema. A plain error
// becomes a result with IsError set and the error's text (the model may
// correct itself); a *codec.Error or a codec.ErrCoder is a protocol error,
// answered as such. A nil result is an empty one.
type ToolHandler func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error)

// ToolHandlerFor serves calls of a tool whose arguments decode into In and
// whose structured output is an Out. Its results and errors are as for
// ToolHandler; when Out has an output schema, out becomes the result's
// structuredContent (unless the result sets one), checked against the
// schema, and is mirrored as a text block when the result has no content.
type ToolHandlerFor[In, Out any] func(ctx context.Context, req *CallToolRequest, in In) (*CallToolResult, Out, error)

// serverTool is a registered tool.
type serverTool struct {
	tool    Tool              // as given; schemas as served
	json    [numLevels][]byte // as listed, per level
	input   *compiledSchema   // nil: no validation
	output  *compiledSchema   // nil: no output schema
	headers []ParamHeader     // its x-mcp-header parameters (Server.ParamHeaders)
	handler ToolHandler
}

func (t *serverTool) listKey() string         { return t.tool.Name }
func (t *serverTool) listJSON(l level) []byte { return t.json[l] }

// AddTool adds a tool, or replaces the one of the same name, whose input
// schema is inferred from In and output schema from Out (none when Out is
// an interface type such as any), unless t gives them. A field's
// `default:"…"` tag (JSON, or a string field's text) becomes its
// property's default, and the property optional. Missing arguments are
// set to their defaults, then validated against the input schema, then
// decoded into an In with member names matched exactly. Arguments with a
// member name given twice in one object (at any depth) never get this
// far: tools/call is answered -32602 naming the member and its JSON
// Pointer, so the schema and the decoder never disagree on which value
// counts. Sessions are told the list changed.
//
// AddTool returns an error, and changes nothing, when the tool cannot be
// served: a nil handler, an empty name, a schema that does not compile,
// or an In or Out that is no JSON object (say int or []string; use a
// struct or a map). Nothing else reports it, not even a log line: check
// it where the tool is registered, or the server runs without the tool.
// The error is the same on every run, so a test of the server's setup
// finds it.
func AddTool[In, Out any](s *Server, t *Tool, h ToolHandlerFor[In, Out]) error {
	if h == nil {
		return errors.New("mcp: AddTool with a nil handler")
	}
	st, err := newServerTool(t, reflect.TypeFor[In](), reflect.TypeFor[Out]())
	if err != nil {
		return err
	}
	hasOutput := st.output != nil
	st.handler = func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		var in In
		args := req.Params.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		if err := codec.UnmarshalExact(args, &in); err != nil {
			return toolError(fmt.Sprintf("invalid arguments for tool %q: %v", req.Params.Name, err)), nil
		}
		res, out, err := h(ctx, req, in)
		if err != nil || (res != nil && res.IsError) {
			return res, err
		}
		if res == nil {
			res = &CallToolResult{}
		}
		if res.StructuredContent == nil && (hasOutput || !isNil(out)) {
			r := *res
			r.StructuredContent = out
			res = &r
		}
		return res, nil
	}
	s.putTool(st)
	return nil
}

// AddTool adds a tool, or replaces the one of the same name, served by a
// handler that reads its raw arguments. t.InputSchema (nil: any object)
// and t.OutputSchema are served as given and enforced. Sessions are told
// the list changed. Like the function AddTool, it returns an error, and
// changes nothing, when the tool cannot be served (a nil handler, an
// empty name, a schema that does not compile or describes no object):
// check it where the tool is registered.
func (s *Server) AddTool(t *Tool, h ToolHandler) error {
	if h == nil {
		return errors.New("mcp: AddTool with a nil handler")
	}
	st, err := newServerTool(t, nil, nil)
	if err != nil {
		return err
	}
	st.handler = h
	s.putTool(st)
	return nil
}

// putTool adds or replaces st. A tool mirroring parameters marks the
// server as having one before it can be found (ParamHeaders).
func (s *Server) putTool(st *serverTool) {
	s.noteScopes(st.tool.Scopes)
	if len(st.headers) > 0 {
		s.paramHeaders.Store(true)
	}
	s.tools.put(st)
}

// RemoveTools removes the tools with these names; sessions are told the
// list changed if any was there.
func (s *Server) RemoveTools(names ...string) { s.tools.remove(names...) }

var anyObject = &compiledSchema{raw: json.RawMessage(`{"type":"object"}`)}

// newServerTool compiles t's schemas: given, else inferred from in and out
// (nil: none to infer).
func newServerTool(t *Tool, in, out reflect.Type) (*serverTool, error) {
	if t == nil || t.Name == "" {
		return nil, errors.New("mcp: a tool needs a name")
	}
	st := &serverTool{tool: *t}
	st.tool.Scopes = slices.Clone(t.Scopes)
	var err error
	switch {
	case t.InputSchema != nil:
		st.input, err = schemaOf(t.InputSchema)
	case in != nil:
		st.input, err = schemaFor(in)
	default:
		st.input = anyObject
	}
	if err != nil {
		return nil, fmt.Errorf("mcp: tool %q: input schema: %w", t.Name, err)
	}
	switch {
	case t.OutputSchema != nil:
		st.output, err = schemaOf(t.OutputSchema)
	case out != nil && out.Kind() != reflect.Interface:
		st.output, err = schemaFor(out)
	}
	if err != nil {
		return nil, fmt.Errorf("mcp: tool %q: output schema: %w", t.Name, err)
	}
	st.tool.InputSchema = st.input.raw
	if st.headers, err = ToolParamHeaders(&st.tool); err != nil {
		return nil, fmt.Errorf("mcp: tool %q: input schema: %w", t.Name, err)
	}
	if st.output != nil {
		st.tool.OutputSchema = st.output.raw
	}
	if st.json, err = encodeLevels(func(l level) any { return st.tool.at(l) }); err != nil {
		return nil, fmt.Errorf("mcp: tool %q: %w", t.Name, err)
	}
	return st, nil
}

// listTools serves tools/list.
func (s *Server) listTools(_ context.Context, ss *ServerSession, _ *router.Request, p *ListToolsParams) (any, error) {
	return s.tools.page("tools", p.Cursor, s.opts.PageSize, ss.vlevel)
}

// maxNamesInError bounds the names an unknown-tool error lists.
const maxNamesInError = 100

// unknownToolData is the data of an unknown tool's error: a struct, so
// its members always come in this order (a map's would not).
type unknownToolData struct {
	Name      string   `json:"name"`
	Available []string `json:"available"`
}

// callTool serves tools/call: find the tool, check its arguments, run it,
// check its structured output.
func (s *Server) callTool(ctx context.Context, req *ServerRequest[*CallToolParams]) (any, error) {
	ss, p := req.Session, req.Params
	if p.Name == "" {
		return nil, invalidParams("Invalid params: name is required")
	}
	st, ok := s.tools.get(p.Name)
	if !ok {
		snap := s.tools.load()
		names := snap.keys[:min(len(snap.keys), maxNamesInError)]
		return nil, invalidParams("Unknown tool: " + p.Name).
			WithData(&unknownToolData{p.Name, names})
	}
	if ss.stateless() {
		return s.callToolStateless(ctx, req, st)
	}
	asTask := p.Task != nil && s.tasksFor(ss)
	if s.tasksFor(ss) {
		support := ""
		if st.tool.Execution != nil {
			support = st.tool.Execution.TaskSupport
		}
		switch {
		case asTask && support != TaskSupportOptional && support != TaskSupportRequired:
			return nil, codec.NewError(codec.CodeMethodNotFound, "Method not found: tool "+quote(p.Name)+" cannot be called as a task")
		case !asTask && support == TaskSupportRequired:
			return nil, codec.NewError(codec.CodeMethodNotFound, "Method not found: tool "+quote(p.Name)+" must be called as a task")
		}
	}
	if asTask {
		return s.startTask(ctx, ss, sessionScope(ss), p.Task.TTL, toolRun(s, st, req, nil))
	}
	res, err := s.runTool(ctx, ss, st, req)
	if err != nil {
		return nil, err
	}
	return res.encodeCommon(), nil
}

// callToolStateless is callTool under a stateless version, where the
// tasks extension may run the call as a task: up front for a tool that
// supports tasks (TaskSupport optional or required), or once its handler
// calls StartTask; only for a request that declares the extension. A
// tool that requires tasks is refused to one that does not, with -32021.
func (s *Server) callToolStateless(ctx context.Context, req *CallToolRequest, st *serverTool) (any, error) {
	ss := req.Session
	if s.tasks != nil && st.tool.Execution != nil {
		switch st.tool.Execution.TaskSupport {
		case TaskSupportRequired:
			if !ss.declaresTasks() {
				return nil, errTasksUndeclared
			}
			fallthrough
		case TaskSupportOptional:
			if ss.declaresTasks() {
				return s.startTask(ctx, ss, s.extScope(ctx), nil, toolRun(s, st, req, nil))
			}
		}
	}
	res, err := s.runTool(ctx, ss, st, req)
	switch {
	case err != nil:
		return nil, err
	case res == nil: // the handler called StartTask
		return s.startTask(ctx, ss, s.extScope(ctx), nil, toolRun(s, st, req, ss.rest()))
	}
	return res.encodeCommon(), nil
}

// toolRun returns the work of a task that runs a tool call: the tool's
// handler, or what it left to the task (StartTask), then the checks of
// its result.
func toolRun(s *Server, st *serverTool, r *CallToolRequest, rest TaskFunc) taskRun {
	return func(ctx context.Context, ss *ServerSession) (*CallToolResult, error) {
		if ss == r.Session { // a task of 2025-11-25
			return s.runTool(ctx, ss, st, r)
		}
		// A task of the extension: the request, answered already, takes
		// no progress notification any more.
		q := *r
		q.Session, q.token = ss, nil
		if rest == nil {
			return s.runTool(ctx, ss, st, &q)
		}
		res, err := rest(ctx, &q)
		return st.outcome(ctx, ss, res, err)
	}
}

// encodeCommon returns the common result (plain text blocks, isError,
// nothing else) as a commonResult, which appends itself; any other result
// as it is, for sonic.
func (r *CallToolResult) encodeCommon() any {
	if r.Meta != nil || r.StructuredContent != nil {
		return r
	}
	for _, c := range r.Content {
		if t, ok := c.(*TextContent); !ok || !t.plain() {
			return r
		}
	}
	return (*commonResult)(r)
}

// commonResult is a common tool result (see encodeCommon). It appends
// itself (a codec.Appender) as sonic would encode the CallToolResult,
// byte for byte, straight into the response's buffer: without sonic,
// which would compact each block's MarshalJSON again, and, being a
// pointer, without an allocation.
type commonResult CallToolResult

// AppendJSON appends r's JSON.
func (r *commonResult) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"content":[`...)
	for i, c := range r.Content {
		if i > 0 {
			b = append(b, ',')
		}
		b = c.(*TextContent).appendPlain(b)
	}
	b = append(b, ']')
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}'), nil
}

// runTool checks a call's arguments, runs the tool and checks its result.
func (s *Server) runTool(ctx context.Context, ss *ServerSession, st *serverTool, r *CallToolRequest) (*CallToolResult, error) {
	p := r.Params
	if string(p.Arguments) == "null" {
		p.Arguments = nil
	}
	if len(p.Arguments) > 0 && firstByte(p.Arguments) != '{' {
		return nil, invalidParams("Invalid params: arguments must be an object")
	}
	if st.input.resolved != nil {
		args := p.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		args, err := st.input.withDefaults(args)
		if err != nil {
			return toolError(fmt.Sprintf("invalid arguments for tool %q: %v", p.Name, err)), nil
		}
		if st.input.defaults {
			p.Arguments = args
		}
	}
	res, err := st.handler(ctx, r)
	if err == nil && ss.rest() != nil {
		return nil, nil // the rest runs as a task
	}
	return st.outcome(ctx, ss, res, err)
}

// outcome is what a call of the tool whose handler returned (res, err)
// ends with: a protocol error as it is, another error as a tool error,
// a result checked and laid out for ss (finish).
func (st *serverTool) outcome(ctx context.Context, ss *ServerSession, res *CallToolResult, err error) (*CallToolResult, error) {
	if err != nil {
		var ce *codec.Error
		var ec codec.ErrCoder
		if errors.As(err, &ce) || errors.As(err, &ec) || ctx.Err() != nil {
			return nil, err
		}
		return toolError(err.Error()), nil
	}
	return st.finish(res, ss.vlevel)
}

// finish checks a tool's result and lays it out as level l defines it:
// content never null, structured content encoded once, checked against
// the output schema and mirrored as text when there is no other content.
// The handler's value may be shared, so it is never modified: what must
// change is changed in a copy, and a result with nothing to change (the
// usual one) goes out as it is.
func (st *serverTool) finish(res *CallToolResult, l level) (*CallToolResult, error) {
	if res == nil {
		return &CallToolResult{Content: []Content{}}, nil
	}
	if res.StructuredContent == nil && !res.IsError && st.output != nil {
		return nil, codec.NewError(codec.CodeInternalError,
			fmt.Sprintf("Internal error: tool %q has an output schema but returned no structured content", st.tool.Name))
	}
	if res.StructuredContent == nil && res.Content != nil {
		if _, changed := contentsAt(res.Content, l); !changed {
			return res, nil
		}
	}
	r := *res
	if r.Content == nil {
		r.Content = []Content{}
	}
	if r.StructuredContent == nil || r.IsError {
		return r.at(l), nil
	}
	raw, err := codec.AppendValue(nil, r.StructuredContent)
	if err != nil {
		return nil, fmt.Errorf("mcp: tool %q: encoding structured content: %w", st.tool.Name, err)
	}
	if firstByte(raw) != '{' {
		return nil, codec.NewError(codec.CodeInternalError,
			fmt.Sprintf("Internal error: tool %q: structured content must be a JSON object", st.tool.Name))
	}
	if st.output != nil {
		if err := st.output.validate(raw); err != nil {
			return nil, codec.NewError(codec.CodeInternalError,
				fmt.Sprintf("Internal error: tool %q: structured content does not match the output schema: %v", st.tool.Name, err))
		}
	}
	r.StructuredContent = json.RawMessage(raw)
	if len(r.Content) == 0 {
		r.Content = []Content{&TextContent{Text: string(raw)}}
	}
	return r.at(l), nil
}

// toolError is a result that reports a failure the model may correct.
func toolError(msg string) *CallToolResult {
	return &CallToolResult{Content: []Content{&TextContent{Text: msg}}, IsError: true}
}

// firstByte returns the first byte of a JSON value that is not white
// space, or 0.
func firstByte(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
		default:
			return c
		}
	}
	return 0
}

// isNil reports whether v is nil, or a nil pointer, map, slice or
// interface inside an interface.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}
