package mcp

import (
	"context"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/principal"
	"github.com/mcpwire/mcpwire/router"
)

// Scopes required per feature and method: see the package documentation,
// "Scopes".

// ScopeHolder is a principal that carries the scopes its access token
// grants (oauth.Principal is one). A principal of another kind grants no
// scope.
type ScopeHolder interface {
	HasScope(scope string) bool
}

// scopeChecker is a SessionTransport that checks each request's scopes
// itself, against the credentials that came with the request, before it
// serves it (Streamable HTTP): the server does not check them again,
// since the session's context carries no request's principal.
type scopeChecker interface {
	ChecksScopes() bool
}

// errNoPrincipal answers a request that needs scopes but carries no
// principal.
var errNoPrincipal = codec.NewError(codec.CodeUnauthorized, "Unauthorized: an access token is required")

// noteScopes records that a feature declares scopes: from then on
// requests are checked.
func (s *Server) noteScopes(scopes []string) {
	if len(scopes) > 0 {
		s.scoped.Store(true)
	}
}

// RequiredScopes returns the scopes a request for method with these
// params (raw JSON, as received) needs: ServerOptions.MethodScopes of
// method, then those of the feature it names — the tool of tools/call
// (Tool.Scopes, then ServerOptions.ToolScopes),
// the prompt of prompts/get, the resource (or else the first matching
// template) of resources/read, resources/subscribe and
// resources/unsubscribe. It returns nil when none are needed, at the cost
// of one atomic load when no scope was ever declared. The slice must not
// be modified. Transports that serve bodies themselves call it to refuse
// a request before serving it; safe for concurrent use.
func (s *Server) RequiredScopes(method string, params []byte) []string {
	if !s.scoped.Load() {
		return nil
	}
	need := s.opts.MethodScopes[method]
	var own []string
	switch method {
	case "tools/call":
		name := stringMember(params, "name")
		if t, ok := s.tools.get(name); ok {
			own = t.tool.Scopes
			if more := s.opts.ToolScopes[name]; len(more) > 0 {
				own = append(slices.Clip(own), more...)
			}
		}
	case "prompts/get":
		if p, ok := s.prompts.get(stringMember(params, "name")); ok {
			own = p.prompt.Scopes
		}
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		own = s.resourceScopes(stringMember(params, "uri"))
	}
	switch {
	case len(own) == 0:
		return need
	case len(need) == 0:
		return own
	}
	return append(slices.Clip(need), own...)
}

// resourceScopes returns the scopes of the resource uri names: those of
// the resource of that URI, else of the first template matching it, as
// findResource finds its handler.
func (s *Server) resourceScopes(uri string) []string {
	if uri == "" {
		return nil
	}
	if r, ok := s.resources.get(uri); ok {
		return r.res.Scopes
	}
	for _, t := range s.templates.load().items {
		if t.uri.Match(uri) != nil {
			return t.tmpl.Scopes
		}
	}
	return nil
}

// MissingScopes returns those of scopes the principal ctx carries does
// not grant, in the order given without repeats, or nil when it grants
// them all; a principal that is not a ScopeHolder grants none. ok is
// false when ctx carries no principal at all.
func MissingScopes(ctx context.Context, scopes []string) (missing []string, ok bool) {
	p, ok := principal.From(ctx)
	if !ok {
		return slices.Clone(scopes), false
	}
	h, _ := p.(ScopeHolder)
	for _, sc := range scopes {
		if (h == nil || !h.HasScope(sc)) && !slices.Contains(missing, sc) {
			missing = append(missing, sc)
		}
	}
	return missing, true
}

// ScopeError returns the -32010 refusing a request whose token lacks
// these scopes: data {"scope": "<missing, space-separated>"}.
func ScopeError(missing []string) *codec.Error {
	scope := strings.Join(missing, " ")
	return codec.NewError(codec.CodeForbidden, "Forbidden: the access token lacks the scope "+scope).
		WithData(map[string]string{"scope": scope})
}

// checkScopes refuses req when the principal of ctx lacks a scope it
// needs (see RequiredScopes), unless ss's transport checked them.
func (s *Server) checkScopes(ctx context.Context, ss *ServerSession, req *router.Request) error {
	if !s.scoped.Load() {
		return nil
	}
	if t, ok := ss.transport.(scopeChecker); ok && t.ChecksScopes() {
		return nil
	}
	need := s.RequiredScopes(req.Method, req.Params)
	if len(need) == 0 {
		return nil
	}
	missing, ok := MissingScopes(ctx, need)
	switch {
	case !ok:
		return errNoPrincipal
	case missing != nil:
		return ScopeError(missing)
	}
	return nil
}

// stringMember returns obj's member name when it is a string, unescaped,
// or "" (not an object, no such member, not a string). obj has been
// validated by the connection's scanner.
func stringMember(obj []byte, name string) string {
	if codec.KindOf(obj) != codec.ValueObject {
		return ""
	}
	var scratch [16]byte
	var m codec.Members
	var v []byte
	for m.Reset(obj); m.Next(); {
		if string(m.Name(scratch[:0])) == name {
			v = m.Value()
		}
	}
	if v == nil || codec.KindOf(v) != codec.ValueString {
		return ""
	}
	b, err := codec.Unquote(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// DeclaresScopes reports whether any feature or method of the server
// declares scopes (Tool.Scopes…, ServerOptions.MethodScopes): until one
// does, no request is checked. Safe for concurrent use.
func (s *Server) DeclaresScopes() bool { return s.scoped.Load() }
