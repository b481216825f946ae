package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// ResourceHandler reads a resource. For a resource template,
// req.Params.Vars holds the values of the template's variables. Returning
// ErrResourceNotFound (or a nil result) answers -32002; contents without a
// URI get the one asked for.
type ResourceHandler func(ctx context.Context, req *ReadResourceRequest) (*ReadResourceResult, error)

// ErrResourceNotFound is what a ResourceHandler returns for a resource it
// does not have: the client is answered -32002 with the URI in data.
var ErrResourceNotFound = errors.New("mcp: resource not found")

type serverResource struct {
	res     Resource
	json    [numLevels][]byte // as listed, per level
	handler ResourceHandler
}

func (r *serverResource) listKey() string         { return r.res.URI }
func (r *serverResource) listJSON(l level) []byte { return r.json[l] }

type serverTemplate struct {
	tmpl    ResourceTemplate
	json    [numLevels][]byte // as listed, per level
	uri     *uritemplate.Template
	handler ResourceHandler
}

func (t *serverTemplate) listKey() string         { return t.tmpl.URITemplate }
func (t *serverTemplate) listJSON(l level) []byte { return t.json[l] }

// AddResource adds a resource, or replaces the one with the same URI.
// Sessions are told the list changed. It returns an error, and changes
// nothing, when r has no URI or h is nil: check it where the resource is
// registered, as nothing else reports it.
func (s *Server) AddResource(r *Resource, h ResourceHandler) error {
	if r == nil || r.URI == "" || h == nil {
		return errors.New("mcp: AddResource needs a URI and a handler")
	}
	sr := &serverResource{res: *r, handler: h}
	sr.res.Scopes = slices.Clone(r.Scopes)
	var err error
	if sr.json, err = encodeLevels(func(l level) any { return sr.res.at(l) }); err != nil {
		return fmt.Errorf("mcp: resource %q: %w", r.URI, err)
	}
	s.noteScopes(sr.res.Scopes)
	s.resources.put(sr)
	return nil
}

// AddResourceTemplate adds resources whose URIs match an RFC 6570
// template, or replaces the template with the same text. Sessions are
// told the list changed. It returns an error, and changes nothing, when
// t's URITemplate is no valid RFC 6570 template or h is nil: check it
// where the template is registered, as nothing else reports it.
func (s *Server) AddResourceTemplate(t *ResourceTemplate, h ResourceHandler) error {
	if t == nil || h == nil {
		return errors.New("mcp: AddResourceTemplate needs a template and a handler")
	}
	u, err := uritemplate.New(t.URITemplate)
	if err != nil {
		return fmt.Errorf("mcp: resource template %q: %w", t.URITemplate, err)
	}
	st := &serverTemplate{tmpl: *t, uri: u, handler: h}
	st.tmpl.Scopes = slices.Clone(t.Scopes)
	if st.json, err = encodeLevels(func(l level) any { return st.tmpl.at(l) }); err != nil {
		return fmt.Errorf("mcp: resource template %q: %w", t.URITemplate, err)
	}
	s.noteScopes(st.tmpl.Scopes)
	s.templates.put(st)
	return nil
}

// RemoveResources removes the resources with these URIs; sessions are
// told the list changed if any was there.
func (s *Server) RemoveResources(uris ...string) { s.resources.remove(uris...) }

// RemoveResourceTemplates removes the templates with these texts.
func (s *Server) RemoveResourceTemplates(templates ...string) { s.templates.remove(templates...) }

func (s *Server) listResources(_ context.Context, ss *ServerSession, _ *router.Request, p *ListResourcesParams) (any, error) {
	return s.resources.page("resources", p.Cursor, s.opts.PageSize, ss.vlevel)
}

func (s *Server) listTemplates(_ context.Context, ss *ServerSession, _ *router.Request, p *ListResourceTemplatesParams) (any, error) {
	return s.templates.page("resourceTemplates", p.Cursor, s.opts.PageSize, ss.vlevel)
}

// resourceNotFound is the answer to ss for uri: -32002 under the older
// versions, -32602 under the stateless ones (2026-07-28 gave up -32002).
func resourceNotFound(ss *ServerSession, uri string) *codec.Error {
	code := codec.CodeResourceNotFound
	if ss.stateless() {
		code = codec.CodeInvalidParams
	}
	return codec.NewError(code, "Resource not found").
		WithData(map[string]string{"uri": uri})
}

// findResource returns the handler of uri and the template variables: a
// resource of that URI, else the first template (in the order of their
// texts) that matches it.
func (s *Server) findResource(uri string) (ResourceHandler, map[string]string, bool) {
	if r, ok := s.resources.get(uri); ok {
		return r.handler, nil, true
	}
	for _, t := range s.templates.load().items {
		vals := t.uri.Match(uri)
		if vals == nil {
			continue
		}
		vars := make(map[string]string, len(vals))
		for _, name := range t.uri.Varnames() {
			if v := vals.Get(name); v.Valid() {
				vars[name] = v.String()
			}
		}
		return t.handler, vars, true
	}
	return nil, nil, false
}

// readResource serves resources/read.
func (s *Server) readResource(ctx context.Context, req *ServerRequest[*ReadResourceParams]) (any, error) {
	ss, p := req.Session, req.Params
	if p.URI == "" {
		return nil, invalidParams("Invalid params: uri is required")
	}
	h, vars, ok := s.findResource(p.URI)
	if !ok {
		return nil, resourceNotFound(ss, p.URI)
	}
	p.Vars = vars
	res, err := h(ctx, req)
	if errors.Is(err, ErrResourceNotFound) || (err == nil && res == nil) {
		return nil, resourceNotFound(ss, p.URI)
	}
	if err != nil {
		return nil, err
	}
	r := *res
	r.Contents = make([]*ResourceContents, len(res.Contents))
	for i, c := range res.Contents {
		if c.URI == "" {
			cc := *c
			cc.URI = p.URI
			c = &cc
		}
		c = resourceContentsAt(c, ss.vlevel)
		r.Contents[i] = c
	}
	if ss.stateless() {
		return &hinted{v: &r, hint: readHint(&r, ss.srv.hints.read)}, nil
	}
	r.TTLMs, r.CacheScope = nil, "" // not in the older versions' schemas
	return &r, nil
}
