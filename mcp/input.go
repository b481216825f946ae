package mcp

import (
	"context"
	"errors"
	"fmt"
)

// ErrInputRequired is returned by a request's Elicit, Sample, Roots and
// Inputs (and by the ServerSession methods they use) under 2026-07-28
// when the client has not answered yet: the handler returns it (or any
// error wrapping it), and the request is answered input_required with
// what was asked (see the package documentation, "Multi-round-trip
// requests"). A request that asked for input that has no answer is
// answered so whatever its handler returns.
var ErrInputRequired = errors.New("mcp: the client's input is required; return this error")

// Input is one question a handler puts to its client: exactly one of
// Elicit, Sample and Roots.
type Input struct {
	// Key names the input request in inputRequests under 2026-07-28
	// (unique within the request; "" lets the server choose one). It is
	// not sent under the older versions.
	Key string
	// Elicit asks the user (elicitation/create).
	Elicit *ElicitParams
	// Sample asks the client's language model (sampling/createMessage).
	Sample *CreateMessageParams
	// Roots asks for the client's roots (roots/list).
	Roots bool
}

// InputAnswer is the client's answer to an Input: the field matching the
// Input's question is set.
type InputAnswer struct {
	Elicit *ElicitResult
	Sample *CreateMessageResult
	Roots  *ListRootsResult
}

// Elicit asks the user, through the client, for information: under the
// versions with initialize a request to the client (ServerSession.Elicit),
// under 2026-07-28 an input request the client answers by retrying this
// request. It fails as ServerSession.Elicit does, and with
// ErrInputRequired while the answer has not come.
func (r *ServerRequest[P]) Elicit(ctx context.Context, p *ElicitParams) (*ElicitResult, error) {
	return r.Session.Elicit(ctx, p)
}

// Sample asks the client's language model for a message, as Elicit asks
// the user (ServerSession.CreateMessage).
func (r *ServerRequest[P]) Sample(ctx context.Context, p *CreateMessageParams) (*CreateMessageResult, error) {
	return r.Session.CreateMessage(ctx, p)
}

// Roots asks the client for its roots, as Elicit asks the user
// (ServerSession.ListRoots).
func (r *ServerRequest[P]) Roots(ctx context.Context) (*ListRootsResult, error) {
	return r.Session.ListRoots(ctx)
}

// Inputs asks several questions at once and returns their answers in
// order. Under 2026-07-28 every question without an answer goes into one
// input_required result (and it fails with ErrInputRequired); under the
// older versions the requests are sent to the client one after another.
// In a tool running as a task of the tasks extension (2026-07-28) they
// all become the task's input requests at once, and Inputs waits until
// every one has been answered (see StartTask).
// Each question is checked first, as Elicit, Sample and Roots check
// theirs: if one fails, none is asked.
func (r *ServerRequest[P]) Inputs(ctx context.Context, in ...Input) ([]InputAnswer, error) {
	ss := r.Session
	asks := make([]ask, len(in))
	for i := range in {
		if err := ss.prepareInput(&in[i], &asks[i]); err != nil {
			return nil, fmt.Errorf("input %d: %w", i, err)
		}
	}
	out := make([]InputAnswer, len(in))
	results := make([]any, len(in))
	for i := range asks {
		switch asks[i].method {
		case "elicitation/create":
			out[i].Elicit = new(ElicitResult)
			results[i] = out[i].Elicit
		case "sampling/createMessage":
			out[i].Sample = new(CreateMessageResult)
			results[i] = out[i].Sample
		default:
			out[i].Roots = new(ListRootsResult)
			results[i] = out[i].Roots
		}
	}
	if ti := ss.taskIn(); ti != nil {
		if err := ti.ask(ctx, asks, results); err != nil {
			return nil, err
		}
		return out, nil
	}
	missing := false
	for i := range asks {
		a, result := &asks[i], results[i]
		if !ss.stateless() {
			if err := ss.call(ctx, a.method, a.params, result); err != nil {
				return nil, err
			}
			continue
		}
		if !ss.round.on {
			return nil, errStatelessCall
		}
		ok, err := ss.round.ask(a.key, a.method, a.params, result)
		if err != nil {
			return nil, err
		}
		missing = missing || !ok
	}
	if missing {
		return nil, ErrInputRequired
	}
	return out, nil
}

// ask is an Input checked and laid out as the session's version defines
// it.
type ask struct {
	key    string
	method string
	params any
}

// prepareInput checks in and lays it out in a.
func (ss *ServerSession) prepareInput(in *Input, a *ask) error {
	a.key = in.Key
	n := 0
	if in.Elicit != nil {
		n++
		p, err := ss.elicitParams(in.Elicit)
		if err != nil {
			return err
		}
		a.method, a.params = "elicitation/create", p
	}
	if in.Sample != nil {
		n++
		p, err := ss.sampleParams(in.Sample)
		if err != nil {
			return err
		}
		a.method, a.params = "sampling/createMessage", p
	}
	if in.Roots {
		n++
		if err := ss.rootsAllowed(); err != nil {
			return err
		}
		a.method, a.params = "roots/list", nil
	}
	if n != 1 {
		return errors.New("mcp: an Input asks exactly one of Elicit, Sample and Roots")
	}
	return nil
}

// State returns the handler's own state that the request's requestState
// carried back (2026-07-28): what SetState stored in the round before,
// or nil in the first round and under the older versions, where a
// handler runs once.
func (r *ServerRequest[P]) State() []byte {
	if rd := r.Session.round; rd != nil && rd.on && rd.roundState != nil {
		return rd.carried
	}
	return nil
}

// SetState stores the handler's own state in the requestState of the
// input_required result this run ends with, if any (2026-07-28): State
// returns it in the next round. It is sealed with the client's answers
// (encrypted and authenticated, see RequestStateOptions) and counts
// toward RequestStateOptions.MaxBytes. Without a call the state carried
// in goes on to the next round. Under the older versions it does nothing.
func (r *ServerRequest[P]) SetState(b []byte) {
	if rd := r.Session.round; rd != nil && rd.on {
		rd.more().state, rd.stateSet = append([]byte(nil), b...), true
	}
}
