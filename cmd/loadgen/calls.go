package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/mcpwire/mcpwire/codec"
)

// call is one kind of message the run sends: a method and its params
// template, chosen by weight.
type call struct {
	name   string    // for the report: the method, or the tool, resource or prompt
	method []byte    // the method, quoted as JSON
	params *template // nil: no params
	// text is the message from its method on: "method":M,"params":
	// — or, when the params have no placeholders (or there are none),
	// the whole rest of the message, rendered once (static).
	text   []byte
	static bool
	weight float64
	notify bool   // always sent as a notification
	expect []byte // the result expected, in canonical form; nil: not checked
	v1     bool   // sent as JSON-RPC 1.0 (-jsonrpc1)
}

// callSet chooses what each message holds.
type callSet struct {
	calls []call
	cum   []float64 // cumulative weights
	// notify is the share of the calls sent as notifications (-notify).
	notify float64
	// batch is how many calls one message holds (-batch; 1: no batch).
	batch int
	// v1: the calls are JSON-RPC 1.0, and so are the answers (-jsonrpc1).
	v1 bool
}

// jsonrpc1 makes every call of s a JSON-RPC 1.0 one (-jsonrpc1): its
// params must render an array; a call without params sends [].
func (s *callSet) jsonrpc1() error {
	s.v1 = true
	for i := range s.calls {
		c := &s.calls[i]
		c.v1 = true
		if c.params == nil {
			c.text = append(append([]byte(`"method":`), c.method...), `,"params":[]}`...)
			continue
		}
		if sample := c.params.append(nil, 1, rand.New(rand.NewPCG(1, 2))); codec.KindOf(sample) != codec.ValueArray {
			return fmt.Errorf("-jsonrpc1: the params of %s must be an array, got %s", c.name, sample)
		}
	}
	return nil
}

// newCall makes a call of method with the params template text (""
// for none), checking that the template renders valid JSON.
func newCall(name, method, params string, weight float64, notify bool, expect []byte) (call, error) {
	m, _ := json.Marshal(method)
	c := call{name: name, method: m, weight: weight, notify: notify, expect: expect}
	if params != "" {
		t, err := parseTemplate(params)
		if err != nil {
			return call{}, err
		}
		sample := t.append(nil, 1, rand.New(rand.NewPCG(1, 2)))
		if !codec.NewScanner(nil).Valid(sample) {
			return call{}, fmt.Errorf("params of %s: not valid JSON once rendered: %s", name, sample)
		}
		if k := codec.KindOf(sample); k != codec.ValueObject && k != codec.ValueArray {
			return call{}, fmt.Errorf("params of %s: must be an object or an array, got %s", name, sample)
		}
		c.params = t
	}
	head := append([]byte(`"method":`), c.method...)
	lit, static := c.params.literal()
	switch {
	case c.params == nil:
		c.text, c.static = append(head, '}'), true
	case static:
		c.text, c.static = fmt.Appendf(head, `,"params":%s}`, lit), true
	default:
		c.text = append(head, `,"params":`...)
	}
	if weight <= 0 {
		return call{}, fmt.Errorf("weight of %s: must be positive, got %v", name, weight)
	}
	return c, nil
}

// canonical parses an -expect value into its canonical form.
func canonical(what, s string) ([]byte, error) {
	if !codec.NewScanner(nil).Valid([]byte(s)) {
		return nil, fmt.Errorf("%s: not valid JSON: %s", what, s)
	}
	return codec.AppendCanonical(nil, []byte(s))
}

// mcpCall makes the call of an MCP tool, resource or prompt: tools/call,
// resources/read or prompts/get with the arguments template args ("":
// none; a prompt's are strings).
func mcpCall(tool, resource, prompt, args string, weight float64, expect []byte) (call, error) {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	switch {
	case tool != "":
		if args == "" {
			args = "{}"
		}
		return newCall(tool, "tools/call", `{"name":`+q(tool)+`,"arguments":`+args+`}`, weight, false, expect)
	case resource != "":
		return newCall(resource, "resources/read", `{"uri":`+q(resource)+`}`, weight, false, expect)
	case prompt != "":
		if args == "" {
			args = "{}"
		}
		return newCall(prompt, "prompts/get", `{"name":`+q(prompt)+`,"arguments":`+args+`}`, weight, false, expect)
	}
	return call{}, fmt.Errorf("an MCP call needs a tool, a resource or a prompt")
}

// finish computes the weights; it is called once the calls are in.
func (s *callSet) finish() {
	s.cum = s.cum[:0]
	total := 0.0
	for _, c := range s.calls {
		total += c.weight
		s.cum = append(s.cum, total)
	}
	if s.batch < 1 {
		s.batch = 1
	}
}

// pick chooses a call by weight.
func (s *callSet) pick(r *rand.Rand) *call {
	if len(s.calls) == 1 {
		return &s.calls[0]
	}
	x := r.Float64() * s.cum[len(s.cum)-1]
	for i, c := range s.cum {
		if x < c {
			return &s.calls[i]
		}
	}
	return &s.calls[len(s.calls)-1]
}

// appendCall appends one call as a JSON-RPC message: a request with id
// (its decimal text; a notification when id is nil, in 1.0 id null), its
// params rendered for seq.
func appendCall(dst []byte, c *call, id []byte, seq uint64, r *rand.Rand) []byte {
	switch {
	case c.v1 && id == nil:
		dst = append(dst, `{"id":null,`...)
	case c.v1:
		dst = append(dst, `{"id":`...)
		dst = append(dst, id...)
		dst = append(dst, ',')
	case id != nil:
		dst = append(dst, `{"jsonrpc":"2.0","id":`...)
		dst = append(dst, id...)
		dst = append(dst, ',')
	default:
		dst = append(dst, `{"jsonrpc":"2.0",`...)
	}
	dst = append(dst, c.text...)
	if c.static {
		return dst
	}
	return append(c.params.append(dst, seq, r), '}')
}
