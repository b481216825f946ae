package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// PromptHandler renders a prompt. Its required arguments have been checked
// to be present.
type PromptHandler func(ctx context.Context, req *GetPromptRequest) (*GetPromptResult, error)

type serverPrompt struct {
	prompt  Prompt
	json    [numLevels][]byte // as listed, per level
	handler PromptHandler
}

func (p *serverPrompt) listKey() string         { return p.prompt.Name }
func (p *serverPrompt) listJSON(l level) []byte { return p.json[l] }

// AddPrompt adds a prompt, or replaces the one of the same name. Sessions
// are told the list changed. It returns an error, and changes nothing,
// when p has no name or h is nil: check it where the prompt is
// registered, as nothing else reports it.
func (s *Server) AddPrompt(p *Prompt, h PromptHandler) error {
	if p == nil || p.Name == "" || h == nil {
		return errors.New("mcp: AddPrompt needs a name and a handler")
	}
	sp := &serverPrompt{prompt: *p, handler: h}
	sp.prompt.Scopes = slices.Clone(p.Scopes)
	var err error
	if sp.json, err = encodeLevels(func(l level) any { return sp.prompt.at(l) }); err != nil {
		return fmt.Errorf("mcp: prompt %q: %w", p.Name, err)
	}
	s.noteScopes(sp.prompt.Scopes)
	s.prompts.put(sp)
	return nil
}

// RemovePrompts removes the prompts with these names; sessions are told
// the list changed if any was there.
func (s *Server) RemovePrompts(names ...string) { s.prompts.remove(names...) }

func (s *Server) listPrompts(_ context.Context, ss *ServerSession, _ *router.Request, p *ListPromptsParams) (any, error) {
	return s.prompts.page("prompts", p.Cursor, s.opts.PageSize, ss.vlevel)
}

// unknownPrompt is the -32602 answer for a prompt name the server lacks.
func unknownPrompt(name string) *codec.Error {
	return invalidParams("Unknown prompt: " + name).WithData(map[string]string{"name": name})
}

// getPrompt serves prompts/get.
func (s *Server) getPrompt(ctx context.Context, req *ServerRequest[*GetPromptParams]) (any, error) {
	ss, p := req.Session, req.Params
	if p.Name == "" {
		return nil, invalidParams("Invalid params: name is required")
	}
	sp, ok := s.prompts.get(p.Name)
	if !ok {
		return nil, unknownPrompt(p.Name)
	}
	for _, a := range sp.prompt.Arguments {
		if _, ok := p.Arguments[a.Name]; a.Required && !ok {
			return nil, invalidParams("Invalid params: missing required argument " + quote(a.Name)).
				WithData(map[string]string{"argument": a.Name})
		}
	}
	res, err := sp.handler(ctx, req)
	if err != nil {
		return nil, err
	}
	if res == nil || res.Messages == nil {
		r := GetPromptResult{Messages: []*PromptMessage{}}
		if res != nil {
			r = *res
			r.Messages = []*PromptMessage{}
		}
		return &r, nil
	}
	return promptResultAt(res, ss.vlevel), nil
}

// promptResultAt returns res as level l defines it: res itself, or a copy
// whose messages' content l lacks nothing of.
func promptResultAt(res *GetPromptResult, l level) *GetPromptResult {
	var msgs []*PromptMessage
	for i, m := range res.Messages {
		c := contentAt(m.Content, l)
		if c == m.Content {
			continue
		}
		if msgs == nil {
			msgs = slices.Clone(res.Messages)
		}
		msgs[i] = &PromptMessage{Role: m.Role, Content: c}
	}
	if msgs == nil {
		return res
	}
	r := *res
	r.Messages = msgs
	return &r
}
