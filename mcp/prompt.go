package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// PromptHandler renders a prompt. Its required arguments have been checked
// to be present.
type PromptHandler func(ctx context.Context, req *GetPromptRequest) (*GetPromptResult, error)

type serverPrompt struct {
	prompt  Prompt
	json    []byte
	handler PromptHandler
}

func (p *serverPrompt) listKey() string  { return p.prompt.Name }
func (p *serverPrompt) listJSON() []byte { return p.json }

// AddPrompt adds a prompt, or replaces the one of the same name. Sessions
// are told the list changed.
func (s *Server) AddPrompt(p *Prompt, h PromptHandler) error {
	if p == nil || p.Name == "" || h == nil {
		return errors.New("mcp: AddPrompt needs a name and a handler")
	}
	sp := &serverPrompt{prompt: *p, handler: h}
	var err error
	if sp.json, err = codec.AppendValue(nil, &sp.prompt); err != nil {
		return fmt.Errorf("mcp: prompt %q: %w", p.Name, err)
	}
	s.prompts.put(sp)
	return nil
}

// RemovePrompts removes the prompts with these names; sessions are told
// the list changed if any was there.
func (s *Server) RemovePrompts(names ...string) { s.prompts.remove(names...) }

func (s *Server) listPrompts(_ context.Context, _ *ServerSession, _ *router.Request, p *ListPromptsParams) (any, error) {
	return s.prompts.page("prompts", p.Cursor, s.opts.PageSize)
}

// unknownPrompt is the -32602 answer for a prompt name the server lacks.
func unknownPrompt(name string) *codec.Error {
	return invalidParams("Unknown prompt: " + name).WithData(map[string]string{"name": name})
}

// getPrompt serves prompts/get.
func (s *Server) getPrompt(ctx context.Context, ss *ServerSession, req *router.Request, p *GetPromptParams) (any, error) {
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
	res, err := sp.handler(ctx, newRequest(ss, req, p))
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
	return res, nil
}
