package mcp

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"reflect"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/reqmeta"
)

// Keys of _meta that carry, under a stateless protocol version
// (StatelessVersions), what initialize negotiated under the older ones.
const (
	// MetaProtocolVersion names the request's protocol version (required).
	MetaProtocolVersion = reqmeta.ProtocolVersion
	// MetaClientCapabilities holds the client's capabilities for the
	// request (required; {} declares none).
	MetaClientCapabilities = reqmeta.ClientCapabilities
	// MetaClientInfo names the client (optional).
	MetaClientInfo = reqmeta.ClientInfo
	// MetaLogLevel is the least severe level of the log messages the
	// request wants (optional: without it, none are sent).
	MetaLogLevel = reqmeta.LogLevel
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
// else has it is judged by the walk (requestMeta.Read) that follows.
var statelessKey = []byte(`xtprotocol/`)

// requestMeta is the view of a request's params that one walk over them
// makes (reqmeta.View): what _meta may carry under a stateless version,
// the members of multi-round-trip requests, which inputRound.open takes
// from it, and tools/call's common form, which
// CallToolParams.decodeCommon takes from it.
type requestMeta = reqmeta.View

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
	errBadCaps = invalidParams("Invalid params: " + MetaClientCapabilities + " must be a ClientCapabilities object")
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
// (see requestMeta), whole when a session is returned. With the session
// comes ctx carrying it (sessionContext), made in the session's
// allocation.
func (s *Server) statelessSession(ctx context.Context, home *ServerSession, g gate, method string, params []byte, mm *requestMeta) (*ServerSession, context.Context, error) {
	if codec.KindOf(params) == codec.ValueObject && (g&onlyStateless == 0 || bytes.Contains(params, statelessKey)) {
		read := mm.Read(params)
		if at := mm.DuplicateName(params); at >= 0 {
			return nil, nil, codec.DuplicateNameError(params, at)
		}
		if !read {
			return nil, nil, errBadMeta
		}
	}
	version, ok := Version20260728, true
	common := string(mm.Version) == quotedStateless // no decoding, and no version list to search
	if !common && len(mm.Version) > 0 {
		version, ok = metaVersion(mm.Version)
	}
	switch {
	case len(mm.Version) == 0 && len(mm.Caps) == 0:
		if g&onlyStateless != 0 {
			return nil, nil, errNoVersion
		}
		return nil, nil, nil
	case len(mm.Version) == 0:
		return nil, nil, errNoVersion
	case !ok:
		return nil, nil, invalidParams("Invalid params: " + MetaProtocolVersion + " must be a string")
	case !common && IsSupportedVersion(version):
		// A version of initialize's: the key is not this request's to
		// choose; the session's negotiation governs.
		if g&onlyStateless != 0 {
			return nil, nil, invalidParams("Invalid params: " + method + " is a method of protocol version " +
				Version20260728 + ", not of " + version)
		}
		return nil, nil, nil
	case !common && !IsStatelessVersion(version):
		return nil, nil, codec.NewError(codec.CodeUnsupportedProtocolVersion, "Unsupported protocol version").
			WithData(&unsupportedVersionData{Supported: allVersions, Requested: version})
	case g&stateless == 0:
		return nil, nil, codec.NewError(codec.CodeMethodNotFound, "Method not found: "+method+
			" is not part of protocol version "+version).WithData(map[string]string{"method": method})
	case len(mm.Caps) == 0 || string(mm.Caps) == "null":
		return nil, nil, errNoCaps
	}
	a := new(statelessAlloc) // the session, its round, context and result: one allocation
	rs := &a.ss              // zero: set field by field, not copied from a literal of its size
	rs.srv, rs.home, rs.done, rs.transport = s, home, home.done, home.transport
	rs.version, rs.vlevel, rs.round, rs.out = version, levelOf(version), &a.round, &a.out
	a.round.responses, a.round.token = mm.Responses, mm.State // for open
	if codec.KindOf(mm.Caps) != codec.ValueObject {
		return nil, nil, errBadCaps
	}
	if string(mm.Caps) != "{}" { // {} declares nothing: nil
		if rs.clientCaps = decodeNew[ClientCapabilities](mm.Caps); rs.clientCaps == nil {
			return nil, nil, errBadCaps
		}
	}
	if len(mm.Info) > 0 && string(mm.Info) != "null" {
		if codec.KindOf(mm.Info) == codec.ValueObject {
			rs.clientInfo = decodeNew[Implementation](mm.Info)
		}
		if rs.clientInfo == nil {
			return nil, nil, invalidParams("Invalid params: " + MetaClientInfo + " must be an Implementation object")
		}
	}
	rs.level.Store(math.MaxInt32) // no log message unless asked for
	if len(mm.LogLevel) > 0 && string(mm.LogLevel) != "null" {
		var l LoggingLevel
		if codec.UnmarshalExact(mm.LogLevel, &l) != nil || !l.Valid() {
			return nil, nil, invalidParams("Invalid params: " + MetaLogLevel + " must be a logging level").
				WithData(map[string]string{"level": string(mm.LogLevel)})
		}
		rs.level.Store(l.severity())
	}
	rs.c.Store(home.c.Load())
	rs.state.Store(stateInitialized)
	a.ctx.Context, a.ctx.ss = ctx, rs
	return rs, &a.ctx, nil
}

// sessionContext is a context carrying a stateless request's session, as
// context.WithValue(parent, sessionKey{}, ss) would, made in the
// session's allocation (statelessAlloc) rather than in one of its own.
type sessionContext struct {
	context.Context // the parent
	ss              *ServerSession
}

// Value implements context.Context.
func (c *sessionContext) Value(key any) any {
	if key == (sessionKey{}) {
		return c.ss
	}
	return c.Context.Value(key)
}

// metaVersion decodes raw, the protocol version in a request's _meta,
// and reports whether it is a string. Out of line: what it decodes into
// goes to the heap, and the common version (quotedStateless) needs no
// decoding.
func metaVersion(raw []byte) (string, bool) {
	var v string
	if codec.UnmarshalExact(raw, &v) != nil {
		return "", false
	}
	return v, true
}

// decodeNew decodes raw into a new T, or returns nil when raw is not one.
func decodeNew[T any](raw []byte) *T {
	v := new(T)
	if codec.UnmarshalExact(raw, v) != nil {
		return nil
	}
	return v
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
