package mcp

import (
	"context"
	"fmt"
)

// CreateMessage asks the client to sample its language model
// (sampling/createMessage). It fails with ErrNotSupported when the client
// did not declare sampling, and with an error wrapping it when the
// request needs what the client did not declare or the session's version
// lacks: tools or toolChoice (2025-11-25, and the client's sampling.tools),
// several content blocks in one message, or tool_use and tool_result
// blocks (2025-11-25). What the version does not define is left out of
// the request sent, as for every message to the client: _meta of
// messages and content blocks before 2025-11-25 and 2025-06-18, audio
// before 2025-03-26 (a text block stands for it).
//
// Under 2026-07-28 it asks through the request ss serves (see
// ServerRequest.Sample), and fails with ErrInputRequired until the
// client has answered.
func (ss *ServerSession) CreateMessage(ctx context.Context, p *CreateMessageParams) (*CreateMessageResult, error) {
	p, err := ss.sampleParams(p)
	if err != nil {
		return nil, err
	}
	return callFor[CreateMessageResult](ctx, ss, "sampling/createMessage", p)
}

// sampleParams checks p against the client's capabilities and the
// session's version and returns it as that version defines it.
func (ss *ServerSession) sampleParams(p *CreateMessageParams) (*CreateMessageParams, error) {
	cc := ss.ClientCapabilities()
	if cc == nil || cc.Sampling == nil {
		return nil, ss.lacks(&ClientCapabilities{Sampling: &SamplingCapability{}}, ErrNotSupported)
	}
	if len(p.Tools) > 0 || p.ToolChoice != nil {
		if ss.vlevel < level20251125 {
			return nil, fmt.Errorf("%w: tool use in sampling is not part of protocol version %s", ErrNotSupported, ss.version)
		}
		if cc.Sampling.Tools == nil {
			return nil, ss.lacks(&ClientCapabilities{Sampling: &SamplingCapability{Tools: map[string]any{}}},
				fmt.Errorf("%w: the client did not declare tool use in sampling (sampling.tools)", ErrNotSupported))
		}
	}
	return p.at(ss.vlevel)
}

// at returns p as level l defines it: p itself when nothing changes, else
// a copy; an error wrapping ErrNotSupported when a message cannot be said
// in l's terms.
func (p *CreateMessageParams) at(l level) (*CreateMessageParams, error) {
	if p.Messages == nil {
		q := *p
		q.Messages = []*SamplingMessage{}
		return &q, nil
	}
	if l >= level20251125 {
		return p, nil
	}
	var msgs []*SamplingMessage
	for i, m := range p.Messages {
		n, err := m.at(l)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		if n != m && msgs == nil {
			msgs = make([]*SamplingMessage, len(p.Messages))
			copy(msgs, p.Messages[:i])
		}
		if msgs != nil {
			msgs[i] = n
		}
	}
	if msgs == nil {
		return p, nil
	}
	q := *p
	q.Messages = msgs
	return &q, nil
}

// at returns m as level l (older than 2025-11-25) defines it: one content
// block of a type l has, no _meta.
func (m *SamplingMessage) at(l level) (*SamplingMessage, error) {
	if len(m.Content) != 1 {
		return nil, fmt.Errorf("%w: a sampling message of %d content blocks needs protocol version 2025-11-25", ErrNotSupported, len(m.Content))
	}
	c := m.Content[0]
	switch c.(type) {
	case *ToolUseContent, *ToolResultContent:
		return nil, fmt.Errorf("%w: %s content in sampling needs protocol version 2025-11-25", ErrNotSupported, c.contentType())
	}
	d := contentAt(c, l)
	if d == c && m.Meta == nil {
		return m, nil
	}
	return &SamplingMessage{Role: m.Role, Content: []Content{d}}, nil
}
