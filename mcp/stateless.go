package mcp

import (
	"bytes"
	"fmt"
	"math"
	"reflect"

	"github.com/mcpwire/mcpwire/codec"
)

// Keys of _meta that carry, under a stateless protocol version
// (StatelessVersions), what initialize negotiated under the older ones.
const (
	// MetaProtocolVersion names the request's protocol version (required).
	MetaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	// MetaClientCapabilities holds the client's capabilities for the
	// request (required; {} declares none).
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	// MetaClientInfo names the client (optional).
	MetaClientInfo = "io.modelcontextprotocol/clientInfo"
	// MetaLogLevel is the least severe level of the log messages the
	// request wants (optional: without it, none are sent).
	MetaLogLevel = "io.modelcontextprotocol/logLevel"
	// MetaServerInfo names the server in the _meta of every result.
	MetaServerInfo = "io.modelcontextprotocol/serverInfo"
)

// A stateless request is served by a ServerSession of its own, made from
// its _meta by statelessSession: the version, the client's capabilities
// and identity and the log level are the request's, the connection and
// the end (Done, Wait) are those of the session of the connection it came
// on (home). It is never tracked, subscribed or given tasks, and it
// sends no request to the client.

// statelessKey is a tail of the common prefix of the keys above
// ("io.modelcontextprotocol/): a request whose params lack it is not a
// stateless one, and is told apart at the cost of one bytes.Index. The
// tail, not the prefix: bytes.Index looks for a pattern's first byte,
// and a quote would stop it at every string (4 to 6 times slower on a
// stateless tools/call's params); an x stops it about nowhere else. What
// else has it is judged by the walk (requestMeta.read) that follows.
var statelessKey = []byte(`xtprotocol/`)

// requestMeta is a view of a request's params from one walk over them:
// what _meta may carry under a stateless version, each member a raw view
// into the params, judged apart; the members of multi-round-trip
// requests, which inputRound.open takes from it; and tools/call's common
// form, which CallToolParams.decodeCommon takes from it.
type requestMeta struct {
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
	// Read is set once read has walked the whole params.
	Read bool
	// meta is the _meta member; metaAt and argsAt are where _meta and
	// arguments begin in the params (0: absent). names has a bit for
	// each of _meta, name and arguments read, Repeated is set when one
	// came twice: see duplicateName.
	meta           []byte
	metaAt, argsAt int
	names          uint8
	Repeated       bool
}

// Bits of requestMeta.names.
const (
	readMeta uint8 = 1 << iota
	readName
	readArgs
)

// once notes the member bit read, and whether it came before.
func (m *requestMeta) once(bit uint8) {
	if m.names&bit != 0 {
		m.Repeated = true
	}
	m.names |= bit
}

// duplicateName is codec.DuplicateName(params) for params that m has read
// whole (read): when their own names are only those read knows, each
// once, only the containers among their values (_meta, arguments) are
// walked, in the order they come.
func (m *requestMeta) duplicateName(params []byte, read bool) int {
	if !read || m.Uncommon || m.Repeated {
		return codec.DuplicateName(params)
	}
	first, second := m.meta, m.Args
	firstAt, secondAt := m.metaAt, m.argsAt
	if secondAt < firstAt {
		first, second, firstAt, secondAt = second, first, secondAt, firstAt
	}
	if at := codec.DuplicateName(first); at >= 0 {
		return firstAt + at
	}
	if at := codec.DuplicateName(second); at >= 0 {
		return secondAt + at
	}
	return -1
}

// read finds the members of params (an object) that m holds. It reports
// false when _meta is not an object. A member given twice is noted
// (Repeated) and refused (duplicateName) before anything decodes params;
// of two, the last is the one read.
func (m *requestMeta) read(params []byte) bool {
	var top codec.Members
	var scratch [64]byte
	for top.Reset(params); top.Next(); {
		v := top.Value()
		if top.KeyEscaped() {
			m.Uncommon = true
		}
		switch string(top.Name(scratch[:0])) {
		case "_meta":
			if codec.KindOf(v) != codec.ValueObject || !m.readMeta(v) {
				return false
			}
			m.once(readMeta)
			m.meta, m.metaAt = v, top.Offset()
		case "name":
			if codec.KindOf(v) != codec.ValueString || bytes.IndexByte(v, '\\') >= 0 {
				m.Uncommon = true
			}
			m.once(readName)
			m.Name = v
		case "arguments":
			if codec.KindOf(v) != codec.ValueObject {
				m.Uncommon = true
			}
			m.once(readArgs)
			m.Args, m.argsAt = v, top.Offset()
		case "inputResponses":
			m.Responses, m.Uncommon = v, true
		case "requestState":
			m.State, m.Uncommon = v, true
		default:
			m.Uncommon = true
		}
	}
	m.Read = top.Err() == nil
	return m.Read
}

// reread is read from a view of nothing.
func (m *requestMeta) reread(params []byte) bool {
	*m = requestMeta{}
	return m.readCall(params) || m.read(params)
}

// The usual tools/call params, as CallTool sends them: callHead, the
// name's string token less its opening quote, callMid, the arguments
// (an object), '}'.
const (
	callHead = `{"name":"`
	callMid  = `,"arguments":`
)

// readCall is read for params that are exactly the usual tools/call
// params, a name without escapes, read by their bytes: it finds the
// name's token and the arguments' end with one scan each. It reports
// false, leaving m alone, for anything else.
func (m *requestMeta) readCall(params []byte) bool {
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
	if err != nil || end != len(params)-1 || params[end] != '}' {
		return false
	}
	m.Name = params[len(callHead)-1 : nameEnd]
	m.Args, m.argsAt = params[at:end], at
	m.names = readName | readArgs
	m.Read = true
	return true
}

// readMeta reads the members of v, a _meta object, into m.
func (m *requestMeta) readMeta(v []byte) bool {
	var meta codec.Members
	for meta.Reset(v); meta.Next(); {
		if meta.KeyEscaped() {
			m.Others = true
		}
		switch string(meta.Name(nil)) {
		case MetaProtocolVersion:
			m.Version = meta.Value()
		case MetaClientCapabilities:
			m.Caps = meta.Value()
		case MetaClientInfo:
			m.Info = meta.Value()
		case MetaLogLevel:
			m.LogLevel = meta.Value()
		case "progressToken":
			m.Progress, m.Others = meta.Value(), true
		default:
			m.Others = true
		}
	}
	if meta.Index() < 0 {
		m.Others = true // an empty _meta decodes to an empty Meta, not nil
	}
	return meta.Err() == nil
}

// engineMeta reports whether name is one of the keys of _meta that the
// engine reads and a handler finds in its ServerSession instead.
func engineMeta(name string) bool {
	switch name {
	case MetaProtocolVersion, MetaClientCapabilities, MetaClientInfo, MetaLogLevel:
		return true
	}
	return false
}

// dropEngineMeta removes the engine's keys (engineMeta) from the Meta
// field of the params p points to, after a decode that kept them: the
// version, client capabilities, client info and log level of a request
// are its ServerSession's to say, in every era, so a handler finds the
// same Meta whichever era or decoder served it. A Meta left empty
// becomes nil. Reflection: this is the slow path's, after sonic.
func dropEngineMeta(p any) {
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return
	}
	f := v.Elem().FieldByName("Meta")
	if !f.IsValid() || f.Type() != metaType || f.Len() == 0 {
		return
	}
	m := f.Interface().(Meta)
	for k := range m {
		if engineMeta(k) {
			delete(m, k)
		}
	}
	if len(m) == 0 {
		f.Set(reflect.Zero(metaType))
	}
}

// metaType is the type of the Meta field of params.
var metaType = reflect.TypeFor[Meta]()

// quotedStateless is Version20260728 as a JSON string.
const quotedStateless = `"` + Version20260728 + `"`

// Errors of stateless requests. Shared and read-only.
var (
	errNoVersion = invalidParams("Invalid params: _meta must carry " + MetaProtocolVersion +
		" (a protocol version without initialize, such as " + Version20260728 + ")")
	errNoCaps = invalidParams("Invalid params: _meta must carry " + MetaClientCapabilities +
		" under protocol version " + Version20260728 + " ({} declares none)")
	errBadMeta = invalidParams("Invalid params: _meta must be an object")
	// errStatelessCall is what a request to the client fails with from a
	// handler of a stateless request that cannot answer input_required:
	// the version has no server-to-client requests.
	errStatelessCall = fmt.Errorf("%w: under protocol version %s the server asks the client only through "+
		"the input requests of tools/call, prompts/get and resources/read", ErrNotSupported, Version20260728)
)

// statelessSession returns the session that serves a request of home's
// connection with these params when they name a stateless version in
// _meta; nil (and no error) for a request of the older versions, which
// home serves. A method of the older versions only (!g&stateless) is
// -32601 under a stateless version; one of the stateless versions only
// (g&onlyStateless) is -32602 without one. A _meta that names another
// version, or lacks what the version requires, is refused with the
// specification's error. The caller has found statelessKey in params
// unless g&onlyStateless; mm receives the view of params read on the way
// (see requestMeta), whole when a session is returned.
func (s *Server) statelessSession(home *ServerSession, g gate, method string, params []byte, mm *requestMeta) (*ServerSession, error) {
	if codec.KindOf(params) == codec.ValueObject && (g&onlyStateless == 0 || bytes.Contains(params, statelessKey)) {
		if at := codec.DuplicateName(params); at >= 0 {
			return nil, codec.DuplicateNameError(params, at)
		}
		if !mm.read(params) {
			return nil, errBadMeta
		}
	}
	version := Version20260728
	switch {
	case len(mm.Version) == 0 && len(mm.Caps) == 0:
		if g&onlyStateless != 0 {
			return nil, errNoVersion
		}
		return nil, nil
	case len(mm.Version) == 0:
		return nil, errNoVersion
	case string(mm.Version) != quotedStateless && codec.UnmarshalExact(mm.Version, &version) != nil:
		return nil, invalidParams("Invalid params: " + MetaProtocolVersion + " must be a string")
	case IsSupportedVersion(version):
		// A version of initialize's: the key is not this request's to
		// choose; the session's negotiation governs.
		if g&onlyStateless != 0 {
			return nil, invalidParams("Invalid params: " + method + " is a method of protocol version " +
				Version20260728 + ", not of " + version)
		}
		return nil, nil
	case !IsStatelessVersion(version):
		return nil, codec.NewError(codec.CodeUnsupportedProtocolVersion, "Unsupported protocol version").
			WithData(&unsupportedVersionData{Supported: allVersions, Requested: version})
	case g&stateless == 0:
		return nil, codec.NewError(codec.CodeMethodNotFound, "Method not found: "+method+
			" is not part of protocol version "+version).WithData(map[string]string{"method": method})
	case len(mm.Caps) == 0 || string(mm.Caps) == "null":
		return nil, errNoCaps
	}
	a := new(statelessAlloc) // the session and its round: one allocation
	rs := &a.ss
	*rs = ServerSession{srv: s, home: home, done: home.done, transport: home.transport,
		version: version, vlevel: levelOf(version), round: &a.round}
	a.round.responses, a.round.token = mm.Responses, mm.State // for open
	if codec.KindOf(mm.Caps) != codec.ValueObject ||
		(string(mm.Caps) != "{}" && codec.UnmarshalExact(mm.Caps, &rs.clientCaps) != nil) {
		return nil, invalidParams("Invalid params: " + MetaClientCapabilities + " must be a ClientCapabilities object")
	}
	if len(mm.Info) > 0 && string(mm.Info) != "null" {
		if codec.KindOf(mm.Info) != codec.ValueObject || codec.UnmarshalExact(mm.Info, &rs.clientInfo) != nil {
			return nil, invalidParams("Invalid params: " + MetaClientInfo + " must be an Implementation object")
		}
	}
	rs.level.Store(math.MaxInt32) // no log message unless asked for
	if len(mm.LogLevel) > 0 && string(mm.LogLevel) != "null" {
		var l LoggingLevel
		if codec.UnmarshalExact(mm.LogLevel, &l) != nil || !l.Valid() {
			return nil, invalidParams("Invalid params: " + MetaLogLevel + " must be a logging level").
				WithData(map[string]string{"level": string(mm.LogLevel)})
		}
		rs.level.Store(l.severity())
	}
	rs.c.Store(home.c.Load())
	rs.state.Store(stateInitialized)
	return rs, nil
}

// unsupportedVersionData is the data of a -32022 error.
type unsupportedVersionData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}

// stateless reports whether the session serves one request of a
// stateless version (see statelessSession).
func (ss *ServerSession) stateless() bool { return ss.home != nil }

// statelessCapabilities returns what the server declares under a
// stateless version: what it declares at initialize (its list changes and
// resource subscriptions come through subscriptions/listen there), with
// tasks as that version has them: the tasks extension.
func (s *Server) statelessCapabilities() ServerCapabilities {
	c := s.capabilities()
	c.Tasks = nil
	if s.tasks != nil {
		ext := make(map[string]any, len(c.Extensions)+1)
		for k, v := range c.Extensions {
			ext[k] = v
		}
		ext[TasksExtension] = map[string]any{}
		c.Extensions = ext
	}
	return c
}

// lacks returns the error of a request to the client that needs a
// capability the client did not declare: why itself for a session of
// the older versions (an error wrapping ErrNotSupported); under a
// stateless version, an error that also holds the -32021 a handler
// answers with when it returns it, naming need.
func (ss *ServerSession) lacks(need *ClientCapabilities, why error) error {
	if !ss.stateless() {
		return why
	}
	return &capabilityError{why: why, rpc: codec.NewError(codec.CodeMissingRequiredClientCapability,
		"Missing required client capability").WithData(&requiredCapabilities{need})}
}

// requiredCapabilities is the data of a -32021 error.
type requiredCapabilities struct {
	Required *ClientCapabilities `json:"requiredCapabilities"`
}

// capabilityError is a lacking client capability under a stateless
// version: errors.Is(err, ErrNotSupported) holds, and errors.As finds the
// -32021 *codec.Error that a handler returning it is answered with.
type capabilityError struct {
	why error
	rpc *codec.Error
}

func (e *capabilityError) Error() string   { return e.why.Error() }
func (e *capabilityError) Unwrap() []error { return []error{e.why, e.rpc} }
