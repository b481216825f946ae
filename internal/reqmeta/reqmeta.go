// Package reqmeta reads, in one walk, the members of an MCP request's
// params that the engine serves the request by: what _meta carries under
// a stateless protocol version, the members of multi-round-trip requests,
// and tools/call's common form (View). Package mcp serves a request from
// it; package mcp/streamable checks the HTTP headers that mirror a
// stateless request's body against it. Each reads its own: handing the
// transport's view on would cost an allocation a request (a context to
// carry it), which costs more than the walk it saves.
package reqmeta

import (
	"bytes"

	"github.com/mcpwire/mcpwire/codec"
)

// Keys of _meta that carry, under a stateless protocol version, what
// initialize negotiated under the older ones (package mcp exports them).
const (
	ProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	ClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	ClientInfo         = "io.modelcontextprotocol/clientInfo"
	LogLevel           = "io.modelcontextprotocol/logLevel"
)

// View is a view of a request's params from one walk over them (Read):
// what _meta may carry under a stateless version, each member a raw view
// into the params, judged apart; the members of multi-round-trip
// requests; and tools/call's common form. Its slices are valid as long as
// the params are. The zero View is a view of nothing.
type View struct {
	Version, Caps, Info, LogLevel []byte
	// Others is set when a _meta is empty or has a member of another name
	// or a name escaped: it does not hold the engine's keys alone.
	Others bool
	// Responses and State are the members inputResponses and
	// requestState; Progress is _meta's progressToken.
	Responses, State, Progress []byte
	// Name and Args are the members name (a string without escapes) and
	// arguments (an object); Uncommon is set when the params have another
	// member, a name escaped, or a name or arguments of another kind.
	Name, Args []byte
	Uncommon   bool
	// Repeated is set when Read met one of the names it keeps twice, or
	// _meta twice. Without it each member is the params' only one of its
	// name.
	Repeated bool
	// Whole is set once Read has walked the whole params.
	Whole bool
}

// Read finds the members of params (an object a Scanner has validated)
// that m holds. It reports false when _meta is not an object, or params
// not an object. A member given twice is refused (DuplicateName, before
// anything uses m), so the last one is the one.
//
// The usual tools/call params are read by their bytes (readCall); any
// others by a walk over their members (walk), which reads the same.
func (m *View) Read(params []byte) bool {
	return m.readCall(params) || m.walk(params)
}

// walk is Read for any params: a walk over their members.
func (m *View) walk(params []byte) bool {
	var top, meta codec.Members
	var scratch [64]byte
	metas := 0
	for top.Reset(params); top.NextKey(); {
		k := top.Key()
		name := k[1 : len(k)-1] // Name without escapes, inline
		if top.KeyEscaped() {
			m.Uncommon = true
			name = top.Name(scratch[:0])
		}
		if string(name) == "_meta" { // its members read in place, not skipped first
			if metas++; metas > 1 {
				m.Repeated = true
			}
			if !top.Enter(&meta) {
				return false
			}
			m.readMeta(&meta)
			if !top.Leave(&meta) {
				break
			}
			continue
		}
		if !top.ReadValue() {
			break
		}
		switch v := top.Value(); string(name) {
		case "name":
			if codec.KindOf(v) != codec.ValueString || bytes.IndexByte(v, '\\') >= 0 {
				m.Uncommon = true
			}
			m.keep(&m.Name, v)
		case "arguments":
			if codec.KindOf(v) != codec.ValueObject {
				m.Uncommon = true
			}
			m.keep(&m.Args, v)
		case "inputResponses":
			m.Responses, m.Uncommon = v, true
		case "requestState":
			m.State, m.Uncommon = v, true
		default:
			m.Uncommon = true
		}
	}
	m.Whole = top.Err() == nil
	return m.Whole
}

// keep sets *member, one of m's, to v, noting a member read twice.
func (m *View) keep(member *[]byte, v []byte) {
	m.Repeated = m.Repeated || *member != nil
	*member = v
}

// Reread is Read from a view of nothing.
func (m *View) Reread(params []byte) bool {
	*m = View{}
	return m.Read(params)
}

// The usual tools/call params, as a client's CallTool sends them:
// callHead, the name's string token less its opening quote, callMid, the
// arguments (an object), then '}' or, under a stateless version, metaHead
// and _meta's members, each one of the engine's keys (metaKey, then the
// rest of the name, '"', ':') and its value, and "}}".
const (
	callHead = `{"name":"`
	callMid  = `,"arguments":`
	metaHead = `,"_meta":{`
	metaKey  = `"io.modelcontextprotocol/`
)

// readCall is Read for params that are exactly the usual tools/call
// params with a name without escapes, read by their bytes: one scan finds
// the name's end, one the arguments', one each of _meta's values. It
// reports false, leaving m alone, for anything else (a _meta empty, with a
// key given twice or another key, whitespace anywhere), which walk reads.
func (m *View) readCall(params []byte) bool {
	if len(params) < len(callHead) || string(params[:len(callHead)]) != callHead {
		return false
	}
	nameEnd, err := codec.SkipValue(params, len(callHead)-1)
	if err != nil || bytes.IndexByte(params[len(callHead):nameEnd], '\\') >= 0 {
		return false
	}
	at := nameEnd + len(callMid)
	if len(params)-at < 3 || string(params[nameEnd:at]) != callMid || params[at] != '{' {
		return false
	}
	end, err := codec.SkipValue(params, at)
	if err != nil || end >= len(params) {
		return false
	}
	if end != len(params)-1 || params[end] != '}' {
		if !m.readCallMeta(params, end) {
			return false
		}
	}
	m.Name, m.Args, m.Whole = params[len(callHead)-1:nameEnd], params[at:end], true
	return true
}

// metaRests are the engine's keys of _meta after metaKey, each with its
// closing quote and colon, in the order of View's Version, Caps, Info and
// LogLevel (readCallMeta's index for each).
var metaRests = [...]string{
	ProtocolVersion[len(metaKey)-1:] + `":`,
	ClientCapabilities[len(metaKey)-1:] + `":`,
	ClientInfo[len(metaKey)-1:] + `":`,
	LogLevel[len(metaKey)-1:] + `":`,
}

// readCallMeta reads, for readCall, the _meta that follows the arguments
// (ending at end) to the end of params, when it is metaHead, members of
// the engine's keys alone, each given once, and "}}". It reports false,
// leaving m alone, for anything else.
func (m *View) readCallMeta(params []byte, end int) bool {
	at := end + len(metaHead)
	if len(params)-at < len(metaKey) || string(params[end:at]) != metaHead {
		return false
	}
	var got [len(metaRests)][]byte // by metaRests' index
	for {
		if len(params)-at < len(metaKey) || string(params[at:at+len(metaKey)]) != metaKey {
			return false
		}
		at += len(metaKey)
		k := -1
		for i, rest := range &metaRests {
			if len(params)-at > len(rest) && string(params[at:at+len(rest)]) == rest {
				k, at = i, at+len(rest)
				break
			}
		}
		if k < 0 {
			return false
		}
		vEnd, err := codec.SkipValue(params, at)
		if err != nil || got[k] != nil || vEnd >= len(params) || params[at] <= ' ' {
			return false // a fault, a key given twice, or whitespace: walk's
		}
		got[k] = params[at:vEnd]
		if params[vEnd] == ',' {
			at = vEnd + 1
			continue
		}
		if vEnd != len(params)-2 || string(params[vEnd:]) != "}}" {
			return false
		}
		m.Version, m.Caps, m.Info, m.LogLevel = got[0], got[1], got[2], got[3]
		return true
	}
}

// readMeta reads the members of a _meta object into m, walking them
// with meta (codec.Members.Enter); its parent's Leave tells a fault.
func (m *View) readMeta(meta *codec.Members) {
	for meta.Next() {
		k := meta.Key()
		name := k[1 : len(k)-1] // Name without escapes, inline
		if meta.KeyEscaped() {
			m.Others = true
			name = meta.Name(nil)
		}
		switch string(name) {
		case ProtocolVersion:
			m.keep(&m.Version, meta.Value())
		case ClientCapabilities:
			m.keep(&m.Caps, meta.Value())
		case ClientInfo:
			m.keep(&m.Info, meta.Value())
		case LogLevel:
			m.keep(&m.LogLevel, meta.Value())
		case "progressToken":
			m.Progress, m.Others = meta.Value(), true
		default:
			m.Others = true
		}
	}
	if meta.Index() < 0 {
		m.Others = true // an empty _meta decodes to an empty Meta, not nil
	}
}

// DuplicateName is codec.DuplicateName(params) for the params m has read
// (whole, with its names distinct and unescaped): only the values that
// may hold objects are walked again, not the names Read compared. Params
// in which Read found anything else are walked whole.
func (m *View) DuplicateName(params []byte) int {
	if !m.Whole || m.Uncommon || m.Others || m.Repeated {
		return codec.DuplicateName(params)
	}
	if mayRepeat(m.Args) || mayRepeat(m.Caps) || mayRepeat(m.Info) || mayRepeat(m.Version) || mayRepeat(m.LogLevel) {
		return codec.DuplicateName(params) // the first in the params, as it reports
	}
	return -1
}

// mayRepeat reports whether v, a member's value, gives a name twice in
// one of its objects (codec.DuplicateName): never when it is not an
// object or an array, nor when it is shorter than the shortest that does.
func mayRepeat(v []byte) bool {
	return len(v) >= len(`{"":0,"":0}`) && (v[0] == '{' || v[0] == '[') && codec.DuplicateName(v) >= 0
}
