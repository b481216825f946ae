package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/mcpwire/mcpwire/codec"
)

// Elicitation (elicitation/create) as the server asks for it: form mode,
// whose values pass through the client, and URL mode (2025-11-25), where
// the client only opens a URL and the interaction happens out of band,
// the server telling the client of its end with
// notifications/elicitation/complete. A request the server cannot serve
// until the user has completed URL mode elicitations is answered with
// URLElicitationRequired (-32042).

// Elicitation modes (ElicitParams.Mode). An empty mode is form mode.
const (
	ElicitModeForm = "form"
	ElicitModeURL  = "url"
)

// Elicitation actions (ElicitResult.Action).
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ElicitationCompleteParams are the params of
// notifications/elicitation/complete: the URL mode elicitation whose
// out-of-band interaction has ended.
type ElicitationCompleteParams struct {
	Meta          Meta   `json:"_meta,omitempty"`
	ElicitationID string `json:"elicitationId"`
}

// SupportsForm reports whether a client that declared c serves form mode
// elicitation: it declared form, or neither mode (the 2025-06-18 way of
// declaring form). A nil c supports nothing.
func (c *ElicitationCapability) SupportsForm() bool {
	return c != nil && (c.Form != nil || c.URL == nil)
}

// SupportsURL reports whether a client that declared c serves URL mode
// elicitation (2025-11-25). A nil c supports nothing.
func (c *ElicitationCapability) SupportsURL() bool { return c != nil && c.URL != nil }

// ErrInvalidElicitation is wrapped by the errors of elicitation params
// that break the specification's rules: an unknown mode, a URL mode
// request without an elicitationId or an absolute URL, a form mode one
// with a URL.
var ErrInvalidElicitation = errors.New("mcp: invalid elicitation")

// emptyForm is the requestedSchema of a form mode elicitation that gave
// none (the member is required): a form with no fields, a confirmation.
var emptyForm = codec.Raw(`{"type":"object","properties":{}}`)

// checkElicitParams checks p against the rules of its mode.
func checkElicitParams(p *ElicitParams) error {
	switch p.Mode {
	case "", ElicitModeForm:
		if p.URL != "" || p.ElicitationID != "" {
			return fmt.Errorf("%w: form mode takes no url or elicitationId (set Mode %q)", ErrInvalidElicitation, ElicitModeURL)
		}
	case ElicitModeURL:
		if p.ElicitationID == "" {
			return fmt.Errorf("%w: url mode needs an elicitationId", ErrInvalidElicitation)
		}
		if u, err := url.Parse(p.URL); err != nil || !u.IsAbs() {
			return fmt.Errorf("%w: url mode needs an absolute URL, not %q", ErrInvalidElicitation, p.URL)
		}
		if p.RequestedSchema != nil {
			return fmt.Errorf("%w: url mode takes no requestedSchema", ErrInvalidElicitation)
		}
	default:
		return fmt.Errorf("%w: unknown mode %q (want %q or %q)", ErrInvalidElicitation, p.Mode, ElicitModeForm, ElicitModeURL)
	}
	return nil
}

// Elicit asks the user, through the client, for information
// (elicitation/create). In form mode (Mode "" or "form") the client shows
// RequestedSchema as a form (nil: a form without fields) and returns what
// the user entered; in URL mode ("url", 2025-11-25) it opens URL after
// the user consents and returns at once: the interaction happens out of
// band, and NotifyElicitationComplete tells the client when it has
// ended.
//
// It fails with ErrNotSupported when the client did not declare
// elicitation, with an error wrapping ErrNotSupported when it did not
// declare the mode asked for (or the session's version lacks it: URL mode
// is 2025-11-25's, elicitation itself 2025-06-18's), and with one
// wrapping ErrInvalidElicitation for params that break the mode's rules;
// nothing is sent then.
//
// Under 2026-07-28 it asks through the request ss serves (see
// ServerRequest.Elicit), and fails with ErrInputRequired until the
// client has answered.
func (ss *ServerSession) Elicit(ctx context.Context, p *ElicitParams) (*ElicitResult, error) {
	p, err := ss.elicitParams(p)
	if err != nil {
		return nil, err
	}
	return callFor[ElicitResult](ctx, ss, "elicitation/create", p)
}

// elicitParams checks p against the client's capabilities and the
// session's version and returns it as that version defines it.
func (ss *ServerSession) elicitParams(p *ElicitParams) (*ElicitParams, error) {
	cc := ss.ClientCapabilities()
	if cc == nil || cc.Elicitation == nil {
		need := &ElicitationCapability{}
		if p.Mode == ElicitModeURL {
			need.URL = map[string]any{}
		}
		return nil, ss.lacks(&ClientCapabilities{Elicitation: need}, ErrNotSupported)
	}
	if err := checkElicitParams(p); err != nil {
		return nil, err
	}
	ec := cc.Elicitation
	if ss.vlevel < level20250618 {
		return nil, fmt.Errorf("%w: elicitation is not part of protocol version %s", ErrNotSupported, ss.version)
	}
	if p.Mode == ElicitModeURL {
		if ss.vlevel < level20251125 {
			return nil, fmt.Errorf("%w: URL mode elicitation is not part of protocol version %s", ErrNotSupported, ss.version)
		}
		if !ec.SupportsURL() {
			return nil, ss.lacks(&ClientCapabilities{Elicitation: &ElicitationCapability{URL: map[string]any{}}},
				fmt.Errorf("%w: the client did not declare URL mode elicitation (elicitation.url)", ErrNotSupported))
		}
	} else if !ec.SupportsForm() {
		return nil, ss.lacks(&ClientCapabilities{Elicitation: &ElicitationCapability{Form: map[string]any{}}},
			fmt.Errorf("%w: the client did not declare form mode elicitation (elicitation.form)", ErrNotSupported))
	}
	return p.at(ss.vlevel), nil
}

// at returns p as level l (2025-06-18 or later) defines it: a form
// always has a requestedSchema, and 2025-06-18 has no mode.
func (p *ElicitParams) at(l level) *ElicitParams {
	if p.Mode == ElicitModeURL || (p.RequestedSchema != nil && (p.Mode == "" || l >= level20251125)) {
		return p
	}
	q := *p
	if q.RequestedSchema == nil {
		q.RequestedSchema = emptyForm
	}
	if l < level20251125 {
		q.Mode = ""
	}
	return &q
}

// NotifyElicitationComplete tells the client that the out-of-band
// interaction of the URL mode elicitation elicitationID has ended
// (notifications/elicitation/complete), so that it may retry what
// waited for it. Send it on the session that asked for the elicitation,
// whether by Elicit or by a URLElicitationRequired error. It fails with
// an error wrapping ErrNotSupported when the client did not declare URL
// mode elicitation, or under 2026-07-28, which has no such notification.
func (ss *ServerSession) NotifyElicitationComplete(ctx context.Context, elicitationID string) error {
	if ss.stateless() {
		return fmt.Errorf("%w: notifications/elicitation/complete is not part of protocol version %s", ErrNotSupported, ss.version)
	}
	cc := ss.ClientCapabilities()
	if cc == nil || !cc.Elicitation.SupportsURL() || ss.vlevel < level20251125 {
		return fmt.Errorf("%w: the client did not declare URL mode elicitation (elicitation.url)", ErrNotSupported)
	}
	if elicitationID == "" {
		return fmt.Errorf("%w: notifications/elicitation/complete needs an elicitationId", ErrInvalidElicitation)
	}
	return ss.notify(ctx, "notifications/elicitation/complete", &ElicitationCompleteParams{ElicitationID: elicitationID})
}

// urlElicitationData is the data of a -32042 error.
type urlElicitationData struct {
	Elicitations []*ElicitParams `json:"elicitations"`
}

// URLElicitationRequired returns the error (-32042,
// URLElicitationRequiredError of 2025-11-25) a handler returns when its
// request cannot go on until the user has completed these URL mode
// elicitations: the client has the user open each URL, and may retry the
// request once told they have completed (NotifyElicitationComplete).
// message is the error's message ("" for the standard one). Each
// elicitation needs an ElicitationID and an absolute URL; its Mode is
// set to "url". With none, or an invalid one, the error returned is
// -32603 saying why, so that the mistake shows.
func URLElicitationRequired(message string, elicitations ...*ElicitParams) *codec.Error {
	if len(elicitations) == 0 {
		return codec.NewError(codec.CodeInternalError, "Internal error: URLElicitationRequired without an elicitation")
	}
	list := make([]*ElicitParams, len(elicitations))
	for i, e := range elicitations {
		c := *e
		c.Mode = ElicitModeURL
		if err := checkElicitParams(&c); err != nil {
			return codec.NewError(codec.CodeInternalError, "Internal error: URLElicitationRequired: "+err.Error())
		}
		list[i] = &c
	}
	if message == "" {
		message = "This request requires more information."
	}
	return codec.NewError(codec.CodeURLElicitationRequired, message).WithData(&urlElicitationData{list})
}

// URLElicitations returns the elicitations a URLElicitationRequired error
// (-32042) asks for, as a client received it (the error of a call), or
// nil when err is no such error or its data holds none.
func URLElicitations(err error) []*ElicitParams {
	var ce *codec.Error
	if !errors.As(err, &ce) || ce.Code != codec.CodeURLElicitationRequired || ce.Data == nil {
		return nil
	}
	var d urlElicitationData
	switch v := ce.Data.(type) {
	case *urlElicitationData:
		return v.Elicitations
	case codec.Raw:
		if codec.Unmarshal(v, &d) != nil {
			return nil
		}
	default:
		raw, err := codec.AppendValue(nil, v)
		if err != nil || codec.Unmarshal(raw, &d) != nil {
			return nil
		}
	}
	return d.Elicitations
}
