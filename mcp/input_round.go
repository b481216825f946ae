package mcp

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/principal"
	"github.com/mcpwire/mcpwire/internal/sealed"
	"github.com/mcpwire/mcpwire/router"
)

// A round is one run of the handler of a multi-round-trip request
// (2026-07-28): the client's answers (inputResponses, and those of
// earlier rounds that requestState carries) are looked up as the handler
// asks; what it asks that has no answer becomes an inputRequests of an
// input_required result, with a new requestState that carries every
// answer used so far and the handler's own state.

// inputRound is the state of one run of a handler that may answer
// input_required. Owned by the request's goroutine. What a run that asks
// nothing needs is here; the rest (*roundState) is allocated when the
// handler asks, or the request carries a requestState.
type inputRound struct {
	on          bool // the request's method may answer input_required
	srv         *Server
	ctx         context.Context // the handler's: its principal
	req         *router.Request // valid until the handler returns
	responses   []byte          // the inputResponses object as received, or nil
	token       []byte          // the requestState value as received, or nil
	*roundState                 // nil until needed (see more)
}

// roundState is the part of an inputRound a run that asks nothing does
// without.
type roundState struct {
	earlier  []input // answers that requestState carried
	carried  []byte  // the handler's state that requestState carried
	state    []byte  // the handler's state for the next round
	stateSet bool
	bound    bool           // binding is set
	binding  sealed.Binding // what the state is for (see bind)
	auto     int            // keys drawn for inputs without one
	used     []input        // answers of this run, earlier ones included
	pending  []input        // what this run asked that has no answer
}

// more returns r's roundState, allocated the first time.
func (r *inputRound) more() *roundState {
	if r.roundState == nil {
		r.roundState = new(roundState)
	}
	return r.roundState
}

// input is one input request and, once known, its answer.
type input struct {
	key    string
	method string
	params any    // of a pending one
	answer []byte // raw result, of an answered one
}

// Methods a round may ask, as coded in a requestState.
var inputMethods = [...]string{1: "elicitation/create", 2: "sampling/createMessage", 3: "roots/list"}

// methodCode returns m's code in inputMethods, or 0.
func methodCode(m string) byte {
	for i, s := range inputMethods {
		if s == m && i > 0 {
			return byte(i)
		}
	}
	return 0
}

// errInputResponsesType answers inputResponses that are not an object.
var errInputResponsesType = invalidParams("Invalid params: inputResponses must be an object whose members are the results of the inputRequests")

// statelessAlloc is a session of a stateless request, the round its
// handler may run, the context carrying it and its result, allocated
// together.
type statelessAlloc struct {
	ss    ServerSession
	round inputRound
	ctx   sessionContext
	out   statelessResult
}

// open starts r for req, a request of a stateless version to a method
// that may answer input_required, with the inputResponses and
// requestState members of its params that statelessSession found
// (requestMeta), and opens the state. A state the server cannot open is
// refused with sealed.RPCError's answer.
func (r *inputRound) open(ctx context.Context, s *Server, req *router.Request) error {
	token := r.token
	*r = inputRound{on: true, srv: s, ctx: ctx, req: req, responses: r.responses}
	if r.responses != nil {
		if err := checkResponses(r.responses); err != nil {
			return err
		}
	}
	if token == nil {
		return nil
	}
	var text string
	if codec.KindOf(token) != codec.ValueString || codec.UnmarshalExact(token, &text) != nil {
		return invalidParams("Invalid params: requestState must be a string")
	}
	r.more()
	if err := r.bind(); err != nil {
		return err
	}
	payload, err := s.states.Open(text, r.binding)
	if err != nil {
		return sealed.RPCError(err)
	}
	if !r.decode(payload) {
		return sealed.RPCError(sealed.ErrMalformed)
	}
	return nil
}

// bind sets the round's binding, the first time it is needed: the
// method, the canonical form of the params other than _meta,
// inputResponses and requestState, and the principal.
func (r *inputRound) bind() error {
	if r.bound {
		return nil
	}
	rest := make([]byte, 0, len(r.req.Params)+2)
	rest = append(rest, '{')
	if codec.KindOf(r.req.Params) == codec.ValueObject {
		var m codec.Members
		for m.Reset(r.req.Params); m.Next(); {
			switch string(m.Name(nil)) {
			case "inputResponses", "requestState", "_meta":
				continue
			}
			if len(rest) > 1 {
				rest = append(rest, ',')
			}
			rest = append(rest, m.Key()...)
			rest = append(rest, ':')
			rest = append(rest, m.Value()...)
		}
	}
	rest = append(rest, '}')
	canon, err := codec.AppendCanonical(nil, rest)
	if err != nil {
		return invalidParams("Invalid params: " + err.Error())
	}
	r.binding, r.bound = sealed.Bind([]byte(r.req.Method), canon, principalID(r.ctx)), true
	return nil
}

// checkResponses checks that inputResponses is an object of objects.
func checkResponses(raw []byte) error {
	if codec.KindOf(raw) != codec.ValueObject {
		return errInputResponsesType
	}
	var m codec.Members
	for m.Reset(raw); m.Next(); {
		if codec.KindOf(m.Value()) != codec.ValueObject {
			return invalidParams("Invalid params: inputResponses[" + string(m.Key()) + "] must be an object (the result of that input request)").
				WithData(map[string]string{"field": "inputResponses", "key": string(m.Name(nil))})
		}
	}
	return nil
}

// principalID is the identity of the principal ctx carries, for a
// requestState's binding; empty without one.
func principalID(ctx context.Context) []byte {
	if id := principal.ID(ctx); id != "" {
		return []byte(id)
	}
	return nil
}

// ask returns, in result, the answer to the input request (method,
// params) named key ("" draws one), and true; or false when it has no
// answer yet, and the request is then to be answered input_required. An
// answer that does not decode as method's result is refused with -32602.
func (r *inputRound) ask(key, method string, params, result any) (bool, error) {
	r.more()
	if key == "" {
		r.auto++
		key = "input-" + strconv.Itoa(r.auto)
	}
	for _, in := range r.used {
		if in.key == key && in.method == method {
			return true, decodeAnswer(key, method, in.answer, result)
		}
	}
	for _, in := range r.earlier {
		if in.key == key && in.method == method {
			r.used = append(r.used, in)
			return true, decodeAnswer(key, method, in.answer, result)
		}
	}
	if raw := r.response(key); raw != nil {
		if err := decodeAnswer(key, method, raw, result); err != nil {
			return false, err
		}
		r.used = append(r.used, input{key: key, method: method, answer: raw})
		return true, nil
	}
	for _, in := range r.pending {
		if in.key == key {
			if in.method != method {
				return false, fmt.Errorf("mcp: input request key %q asked for both %s and %s", key, in.method, method)
			}
			return false, nil
		}
	}
	r.pending = append(r.pending, input{key: key, method: method, params: params})
	return false, nil
}

// response returns the member key of inputResponses, or nil.
func (r *inputRound) response(key string) []byte {
	if r.responses == nil {
		return nil
	}
	var m codec.Members
	var scratch [64]byte
	for m.Reset(r.responses); m.Next(); {
		if string(m.Name(scratch[:0])) == key {
			return m.Value()
		}
	}
	return nil
}

// decodeAnswer decodes raw, the answer to input request key, into
// result, and checks what the method's result requires.
func decodeAnswer(key, method string, raw []byte, result any) error {
	bad := func(why string) error {
		return invalidParams("Invalid params: inputResponses[" + strconv.Quote(key) + "] is not a valid " + method + " result: " + why).
			WithData(map[string]string{"field": "inputResponses", "key": key})
	}
	if err := codec.UnmarshalExact(raw, result); err != nil {
		return bad("it does not decode")
	}
	switch v := result.(type) {
	case *ElicitResult:
		if v.Action != ElicitAccept && v.Action != ElicitDecline && v.Action != ElicitCancel {
			return bad(`action must be "accept", "decline" or "cancel"`)
		}
	case *CreateMessageResult:
		if (v.Role != RoleUser && v.Role != RoleAssistant) || len(v.Content) == 0 {
			return bad("it needs a role and content")
		}
	case *ListRootsResult:
		if v.Roots == nil {
			return bad("it needs roots")
		}
	}
	return nil
}

// finish returns what a request whose handler returned (res, err) is
// answered with: an input_required result when the handler asked for
// input that has no answer, whatever it returned; otherwise res and err,
// save that ErrInputRequired without a pending input request is a bug of
// the handler (-32603).
func (r *inputRound) finish(res any, err error) (any, error) {
	if r.roundState == nil || len(r.pending) == 0 {
		if errors.Is(err, ErrInputRequired) {
			return nil, codec.NewError(codec.CodeInternalError, "Internal error: the handler returned ErrInputRequired without asking for input")
		}
		return res, err
	}
	st := r.carried
	if r.stateSet {
		st = r.state
	}
	if err := r.bind(); err != nil {
		return nil, err
	}
	token, err := r.srv.states.Seal(r.encode(st), r.binding)
	if errors.Is(err, sealed.ErrTooLarge) {
		return nil, invalidParams("Invalid params: the answers of this request's earlier rounds are too large to carry in requestState")
	} else if err != nil {
		return nil, codec.NewError(codec.CodeInternalError, "Internal error: requestState could not be sealed")
	}
	return &inputRequired{requests: r.pending, state: token}, nil
}

// inputRequired is an InputRequiredResult as the server sends it.
type inputRequired struct {
	requests []input
	state    string
}

// AppendJSON implements codec.Appender.
func (ir *inputRequired) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"resultType":"input_required","inputRequests":{`...)
	for i, in := range ir.requests {
		if i > 0 {
			b = append(b, ',')
		}
		b = codec.AppendString(b, in.key)
		b = append(b, `:{"method":`...)
		b = codec.AppendString(b, in.method)
		b = append(b, `,"params":`...)
		if in.params == nil {
			b = append(b, "{}"...)
		} else {
			var err error
			if b, err = codec.AppendValue(b, in.params); err != nil {
				return b, err
			}
		}
		b = append(b, '}')
	}
	b = append(b, `},"requestState":`...)
	b = codec.AppendString(b, ir.state)
	return append(b, '}'), nil
}
