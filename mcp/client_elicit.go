package mcp

import (
	"context"
	"slices"
	"sync"
)

// Elicitation as the client serves it: elicitation/create dispatched by
// mode to ClientOptions.ElicitationHandler (form) or
// URLElicitationHandler (URL), an accepted form completed with its
// schema's defaults, and notifications/elicitation/complete
// passed to ElicitationCompleteHandler for the URL mode elicitations the
// session knows of and has not seen complete: those the user accepted,
// and those of -32042 errors its calls received. The specification has
// clients ignore the others; the last few are kept, though, since the
// completion of a -32042 error's elicitation can reach the session before
// the error reaches the caller.

const (
	// maxPendingElicitations bounds the URL mode elicitations a session
	// waits to see complete; past it, the oldest is forgotten.
	maxPendingElicitations = 256
	// maxEarlyCompletions bounds the completions it keeps of elicitations
	// it does not know of (yet): the completion of a -32042 error's
	// elicitation can overtake the error on its way from the reader to
	// the caller.
	maxEarlyCompletions = 64
)

// elicitationCapability returns what a client with these handlers
// declares: {} for form mode alone (what 2025-06-18 servers understand),
// else the modes it serves.
func elicitationCapability(o *ClientOptions) *ElicitationCapability {
	switch {
	case o.URLElicitationHandler == nil && o.ElicitationHandler == nil:
		return nil
	case o.URLElicitationHandler == nil:
		return &ElicitationCapability{}
	case o.ElicitationHandler == nil:
		return &ElicitationCapability{URL: map[string]any{}}
	}
	return &ElicitationCapability{Form: map[string]any{}, URL: map[string]any{}}
}

// elicit serves elicitation/create: a mode the client did not declare,
// or params that break the mode's rules, are -32602.
func (c *Client) elicit(ctx context.Context, s *ClientSession, p *ElicitParams) (any, error) {
	if err := checkElicitParams(p); err != nil {
		return nil, invalidParams("Invalid params: " + err.Error())
	}
	ec := c.caps.Elicitation
	h := c.opts.ElicitationHandler
	if p.Mode == ElicitModeURL {
		if !ec.SupportsURL() {
			return nil, invalidParams(`Invalid params: this client does not support elicitation mode "url"`)
		}
		if c.opts.URLElicitationHandler != nil {
			h = c.opts.URLElicitationHandler
		}
	} else if !ec.SupportsForm() {
		return nil, invalidParams(`Invalid params: this client does not support elicitation mode "form"`)
	}
	if h == nil {
		return nil, invalidParams("Invalid params: this client serves no elicitation of mode " + quote(p.Mode))
	}
	r, err := h(ctx, &ElicitRequest{s, p})
	if err != nil || r == nil {
		return r, err
	}
	if p.Mode == ElicitModeURL && r.Action == ElicitAccept && s.elicits.expect(p.ElicitationID) {
		c.elicitationComplete(ctx, s, p.ElicitationID)
	}
	if p.Mode != ElicitModeURL && r.Action == ElicitAccept && p.RequestedSchema != nil {
		r = c.withFormDefaults(p.RequestedSchema, r)
	}
	if id := relatedTaskID(p.Meta); id != "" {
		q := *r
		q.Meta = relatedTaskMeta(r.Meta, id)
		r = &q
	}
	return r, nil
}

// withFormDefaults returns r, an accepted form, with the defaults of the
// form's schema filled in where its content lacks an optional property
// (SEP-1034), as go-sdk does (the TypeScript SDK does it for a client
// that declares elicitation.form.applyDefaults, a member the
// specification's schema lacks): the user saw the form filled in with
// them. A required property is left to the handler. The handler's result
// is not modified. A schema that does not compile leaves the content as
// it is.
func (c *Client) withFormDefaults(schema any, r *ElicitResult) *ElicitResult {
	content, err := formDefaults(schema, r.Content)
	if err != nil {
		c.log.Debug("mcp: elicitation defaults not applied", "err", err)
		return r
	}
	q := *r
	q.Content = content
	return &q
}

// elicitationComplete passes the completion of elicitation id to
// ClientOptions.ElicitationCompleteHandler, if there is one.
func (c *Client) elicitationComplete(ctx context.Context, s *ClientSession, id string) {
	if h := c.opts.ElicitationCompleteHandler; h != nil {
		h(ctx, s, &ElicitationCompleteParams{ElicitationID: id})
	}
}

// pendingElicitations are the ids of the URL mode elicitations a session
// waits to see complete, oldest first, and the completions it heard of
// before it knew the elicitation. Safe for concurrent use.
type pendingElicitations struct {
	mu    sync.Mutex
	ids   map[string]struct{}
	order []string
	early []string // oldest first, at most maxEarlyCompletions
}

// expect adds id, forgetting the oldest beyond maxPendingElicitations;
// if id's completion came first, it adds nothing and reports true: the
// caller passes the completion on.
func (pe *pendingElicitations) expect(id string) (completed bool) {
	pe.mu.Lock()
	defer pe.mu.Unlock()
	if i := slices.Index(pe.early, id); i >= 0 {
		pe.early = slices.Delete(pe.early, i, i+1)
		return true
	}
	if _, ok := pe.ids[id]; ok {
		return false
	}
	if pe.ids == nil {
		pe.ids = map[string]struct{}{}
	}
	for len(pe.ids) >= maxPendingElicitations && len(pe.order) > 0 {
		delete(pe.ids, pe.order[0])
		pe.order = pe.order[1:]
	}
	pe.ids[id] = struct{}{}
	pe.order = append(pe.order, id)
	return false
}

// complete removes id and reports whether it was expected. One that was
// not is kept (the last maxEarlyCompletions), in case it is expected
// next.
func (pe *pendingElicitations) complete(id string) bool {
	pe.mu.Lock()
	defer pe.mu.Unlock()
	if _, ok := pe.ids[id]; !ok {
		if len(pe.early) >= maxEarlyCompletions {
			pe.early = slices.Delete(pe.early, 0, 1)
		}
		pe.early = append(pe.early, id)
		return false
	}
	delete(pe.ids, id)
	pe.order = slices.DeleteFunc(pe.order, func(x string) bool { return x == id })
	return true
}

// expectAll adds the elicitations of a -32042 error, if err is one, and
// returns those whose completion came first.
func (pe *pendingElicitations) expectAll(err error) (completed []string) {
	for _, e := range URLElicitations(err) {
		if e != nil && e.ElicitationID != "" && pe.expect(e.ElicitationID) {
			completed = append(completed, e.ElicitationID)
		}
	}
	return completed
}
