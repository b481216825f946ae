package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// Under a stateless version (Version20260728) a ClientSession has no
// initialize: it asks server/discover what the server speaks, and every
// request it sends carries the version, the client's capabilities and
// its identity in _meta (modernMeta). A server that refuses
// server/discover with anything but an error of the stateless versions
// is an older one: the session falls back to initialize, as the
// specification's backward compatibility section says.

// modernMeta returns the members the session adds to the _meta of every
// request under version: its protocol version, capabilities and identity,
// as JSON members (no braces).
func (c *Client) modernMeta(version string) ([]byte, error) {
	caps := c.caps
	b := codec.AppendString(nil, MetaProtocolVersion)
	b = append(b, ':')
	b = codec.AppendString(b, version)
	b = append(b, ',')
	b = codec.AppendString(b, MetaClientCapabilities)
	b = append(b, ':')
	b, err := codec.AppendValue(b, &caps)
	if err != nil {
		return nil, err
	}
	b = append(b, ',')
	b = codec.AppendString(b, MetaClientInfo)
	b = append(b, ':')
	return codec.AppendValue(b, &c.impl)
}

// metaMember is the name _meta as it stands in JSON, unescaped.
var metaMember = []byte(`"_meta"`)

// metaKeys are the _meta members modernMeta sets: a caller's own are
// replaced. metaLogKeys add the level SetLoggingLevel sets.
var (
	metaKeys    = []string{MetaProtocolVersion, MetaClientCapabilities, MetaClientInfo}
	metaLogKeys = []string{MetaProtocolVersion, MetaClientCapabilities, MetaClientInfo, MetaLogLevel}
)

// withMeta returns params (a JSON object, or nil for none) with meta's
// members in its _meta, which keeps the caller's other members but those
// named in keys.
func withMeta(params, meta []byte, keys []string) ([]byte, error) {
	// The common case, params without _meta (nor escapes, which could
	// spell it), takes one copy.
	if !bytes.Contains(params, metaMember) && !bytes.Contains(params, []byte(`\u`)) {
		rest := []byte("}")
		if len(params) > 0 {
			rest = bytes.TrimLeft(params[1:], " \t\r\n")
		}
		out := make([]byte, 0, len(metaMember)+len(meta)+len(rest)+4)
		out = append(append(append(out, '{'), metaMember...), ":{"...)
		out = append(append(out, meta...), '}')
		if rest[0] != '}' {
			out = append(out, ',')
		}
		return append(out, rest...), nil
	}
	old := []byte("{}")
	if v, ok := codec.Member(params, "_meta"); ok && codec.KindOf(v) == codec.ValueObject {
		old = v
	}
	m := append([]byte{'{'}, meta...)
	m, err := appendMembers(m, old, keys, len(meta) > 0)
	if err != nil {
		return nil, err
	}
	m = append(m, '}')
	return setMembers(params, []string{"_meta"}, [][]byte{m})
}

// appendMembers appends obj's members but those named in skip to dst,
// after a comma when comma is set and one is appended.
func appendMembers(dst, obj []byte, skip []string, comma bool) ([]byte, error) {
	var it codec.Members
	var scratch [64]byte
	for it.Reset(obj); it.Next(); {
		if slices.Contains(skip, string(it.Name(scratch[:0]))) {
			continue
		}
		if comma {
			dst = append(dst, ',')
		}
		comma = true
		dst = append(dst, it.Key()...)
		dst = append(dst, ':')
		dst = append(dst, it.Value()...)
	}
	return dst, it.Err()
}

// setMembers returns obj (a JSON object) with its members names set to
// values: a nil value removes the member.
func setMembers(obj []byte, names []string, values [][]byte) ([]byte, error) {
	out := []byte{'{'}
	comma := false
	for i, v := range values {
		if v == nil {
			continue
		}
		if comma {
			out = append(out, ',')
		}
		comma = true
		out = codec.AppendString(out, names[i])
		out = append(out, ':')
		out = append(out, v...)
	}
	out, err := appendMembers(out, obj, names, comma)
	return append(out, '}'), err
}

// maxInputRounds bounds the rounds of one multi-round-trip request: a
// server that keeps asking for input past it is answered with an error.
const maxInputRounds = 16

// ErrTooManyInputRounds is returned by a request of a stateless version
// whose server still answered input_required after maxInputRounds (16)
// rounds of input.
var ErrTooManyInputRounds = errors.New("mcp: the server kept asking for input: too many rounds")

// callModern sends a request of a stateless version: params with the
// session's _meta. An input_required result is completed by the
// client's handlers (sampling, elicitation, roots), and the request sent
// again, with a new id, its inputResponses and the server's requestState
// unchanged, until the server answers otherwise (at most maxInputRounds
// times). A result without resultType is complete. List requests are
// answered from the session's listCache while their result is fresh.
func (s *ClientSession) callModern(ctx context.Context, method string, params, result any) error {
	p, err := encodeParams(params)
	if err != nil {
		return err
	}
	key := cacheKey(method, p)
	var gen uint64
	if key != "" {
		var hit []byte
		if hit, gen = s.lists.get(key); hit != nil {
			return s.decode(hit, result)
		}
	}
	meta, keys := s.modern, metaKeys
	if m := s.logMeta.Load(); m != nil {
		meta, keys = *m, metaLogKeys
	}
	if p, err = withMeta(p, meta, keys); err != nil {
		return err
	}
	for round := 0; ; round++ {
		raw, err := s.c.CallRaw(ctx, method, codec.Raw(p))
		if err != nil {
			return s.callFailed(ctx, err)
		}
		rt, _ := codec.Member(raw, "resultType")
		if string(rt) != `"input_required"` {
			if key != "" && round == 0 {
				s.lists.put(key, gen, raw)
			}
			return s.decode(raw, result)
		}
		if round == maxInputRounds {
			return ErrTooManyInputRounds
		}
		responses, err := s.fulfil(ctx, raw)
		if err != nil {
			return err
		}
		state, _ := codec.Member(raw, "requestState")
		if p, err = setMembers(p, []string{"inputResponses", "requestState"}, [][]byte{responses, state}); err != nil {
			return err
		}
	}
}

// encodeParams encodes a request's params as a JSON object (nil: none).
func encodeParams(params any) ([]byte, error) {
	if params == nil {
		return nil, nil
	}
	if r, ok := params.(codec.Raw); ok {
		return r, nil
	}
	b, err := codec.AppendValue(nil, params)
	if err != nil {
		return nil, err
	}
	if k := codec.KindOf(b); k == codec.ValueNull {
		return nil, nil
	} else if k != codec.ValueObject {
		return nil, fmt.Errorf("mcp: params must encode to a JSON object, not %s", k)
	}
	return b, nil
}

// inputRequest is one member of an input_required result's
// inputRequests: a request to the client, served by its handler.
type inputRequest struct {
	Method string    `json:"method"`
	Params codec.Raw `json:"params"`
}

// ErrInputNotServed is returned by a request whose server asked for input
// (input_required) of a kind the client has no handler for.
var ErrInputNotServed = errors.New("mcp: the server asked for input the client does not serve")

// fulfil answers the inputRequests of an input_required result with the
// client's handlers, one after the other, and returns the inputResponses
// (a JSON object, the same keys).
func (s *ClientSession) fulfil(ctx context.Context, result []byte) ([]byte, error) {
	reqs, ok := codec.Member(result, "inputRequests")
	if !ok || codec.KindOf(reqs) != codec.ValueObject {
		return nil, codec.NewError(codec.CodeInvalidParams, "Invalid result: input_required without an inputRequests object")
	}
	ctx = context.WithValue(ctx, clientSessionKey{}, s)
	out := []byte{'{'}
	var it codec.Members
	for it.Reset(reqs); it.Next(); {
		var r inputRequest
		if err := codec.UnmarshalExact(it.Value(), &r); err != nil {
			return nil, codec.NewError(codec.CodeInvalidParams, "Invalid result: an input request is not {method, params}")
		}
		e, ok := s.client.router.Lookup([]byte(r.Method))
		if !ok || !clientInputMethods[r.Method] {
			return nil, fmt.Errorf("%w: %s", ErrInputNotServed, r.Method)
		}
		params := []byte(r.Params)
		if codec.KindOf(params) == codec.ValueNull {
			params = nil
		}
		v, err := e.Handler.Handle(ctx, &router.Request{Method: r.Method, ID: []byte("0"), Params: params})
		if err != nil {
			return nil, err
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, it.Key()...)
		out = append(out, ':')
		if out, err = codec.AppendValue(out, v); err != nil {
			return nil, err
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	return append(out, '}'), nil
}

// clientInputMethods are the requests an input_required result may ask of the
// client.
var clientInputMethods = map[string]bool{"sampling/createMessage": true, "elicitation/create": true, "roots/list": true}

// discover starts a session of a stateless version: server/discover under
// version, and once more under another stateless version the server
// lists in a -32022 answer. It reports whether the server is of the
// older versions (any other error, or a result whose supportedVersions
// lacks the version): the caller falls back to initialize, with legacy,
// the version of initialize's the server listed, if any.
func (s *ClientSession) discover(ctx context.Context, version string) (fallback bool, legacy string, err error) {
	for try := 0; try < 2; try++ {
		if s.modern, err = s.client.modernMeta(version); err != nil {
			return false, "", err
		}
		var r discoverAnswer
		err = s.call(ctx, "server/discover", nil, &r)
		if err == nil && !slices.Contains(r.SupportedVersions, version) {
			// Not an answer of a server of the version: one that
			// answers anything with a result, or lists other versions.
			s.modern = nil
			if i := slices.IndexFunc(r.SupportedVersions, IsSupportedVersion); i >= 0 {
				return true, r.SupportedVersions[i], nil
			}
			return true, "", nil
		}
		if err == nil {
			s.init = InitializeResult{ProtocolVersion: version, Capabilities: r.Capabilities,
				ServerInfo: r.ServerInfo, Instructions: r.Instructions, Meta: r.Meta}
			if info, ok := r.Meta[MetaServerInfo].(map[string]any); ok && s.init.ServerInfo == nil {
				s.init.ServerInfo = &Implementation{}
				s.init.ServerInfo.Name, _ = info["name"].(string)
				s.init.ServerInfo.Version, _ = info["version"].(string)
			}
			if s.init.Capabilities == nil {
				s.init.Capabilities = &ServerCapabilities{}
			}
			return false, "", nil
		}
		s.modern = nil
		if ctx.Err() != nil || s.ended() {
			return false, "", err
		}
		var ce *codec.Error
		if !errors.As(err, &ce) {
			return true, "", nil
		}
		switch ce.Code {
		case codec.CodeUnsupportedProtocolVersion:
			var d unsupportedVersionData
			if raw, ok := ce.Data.(codec.Raw); ok {
				_ = codec.Unmarshal(raw, &d)
			}
			if i := slices.IndexFunc(d.Supported, IsStatelessVersion); i >= 0 && try == 0 {
				version = d.Supported[i]
				continue
			}
			if i := slices.IndexFunc(d.Supported, IsSupportedVersion); i >= 0 {
				return true, d.Supported[i], nil
			}
			return false, "", err
		case codec.CodeMissingRequiredClientCapability, codec.CodeHeaderMismatch:
			return false, "", err // a server of the stateless versions
		}
		return true, "", nil
	}
	return false, "", err
}

// discoverAnswer is a DiscoverResult as servers send it: the server's
// identity in _meta (MetaServerInfo), or in serverInfo as earlier drafts
// had it.
type discoverAnswer struct {
	DiscoverResult
	ServerInfo *Implementation `json:"serverInfo,omitempty"`
}
