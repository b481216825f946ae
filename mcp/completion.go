package mcp

import (
	"context"

	"github.com/mcpwire/mcpwire/codec"
)

// maxCompletionValues is the most values one completion answer may hold.
const maxCompletionValues = 100

// errNoCompletions answers completion/complete on a server without a
// completion handler.
var errNoCompletions = codec.NewError(codec.CodeMethodNotFound, "Method not found: the server offers no completions")

// complete serves completion/complete: the reference must name a prompt
// or a resource template of the server; the handler's values are cut to
// 100 (HasMore set).
func (s *Server) complete(ctx context.Context, req *ServerRequest[*CompleteParams]) (any, error) {
	p := req.Params
	h := s.opts.CompletionHandler
	if h == nil {
		return nil, errNoCompletions
	}
	switch {
	case p.Ref == nil:
		return nil, invalidParams("Invalid params: ref is required")
	case p.Ref.Type == RefPrompt:
		if _, ok := s.prompts.get(p.Ref.Name); !ok {
			return nil, unknownPrompt(p.Ref.Name)
		}
	case p.Ref.Type == RefResource:
		if _, ok := s.templates.get(p.Ref.URI); !ok {
			if _, ok := s.resources.get(p.Ref.URI); !ok {
				return nil, invalidParams("Invalid params: unknown resource template " + quote(p.Ref.URI)).
					WithData(map[string]string{"uri": p.Ref.URI})
			}
		}
	default:
		return nil, invalidParams("Invalid params: unknown reference type " + quote(p.Ref.Type))
	}
	res, err := h(ctx, req)
	if err != nil {
		return nil, err
	}
	r := CompleteResult{}
	if res != nil {
		r = *res
	}
	if r.Completion.Values == nil {
		r.Completion.Values = []string{}
	}
	if len(r.Completion.Values) > maxCompletionValues {
		r.Completion.Values = r.Completion.Values[:maxCompletionValues]
		r.Completion.HasMore = true
	}
	return &r, nil
}
