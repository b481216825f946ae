package transport

import (
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/httpjson"
)

// Messages of the refusals of a HostPolicy (403, code -32010).
const (
	msgHostNotAllowed   = "Forbidden: host not allowed"
	msgOriginNotAllowed = "Forbidden: origin not allowed"
)

// HostPolicy is the protection against DNS rebinding that every HTTP
// endpoint of the engine applies, before anything else, with the same
// rule: HTTPHandler (/rpc), FastHTTPHandler, WebSocketHandler (/ws, before
// the upgrade) and mcp's Streamable HTTP and HTTP+SSE handlers. Its zero
// value is the default, and protects a server reached on a loopback
// address.
//
// The threat: a web page whose host name its attacker points at 127.0.0.1
// makes the user's browser send requests to a local server with the
// attacker's name in Host and the attacker's page in Origin, both chosen
// by the attacker; so neither can be trusted on its own, and comparing
// them with each other proves nothing.
//
// The rule, for a request that reached the server on local address L:
//
//   - Host: on a loopback L (127.0.0.0/8, ::1), Host must name a loopback
//     host (localhost, a loopback address, with any port) or be listed in
//     AllowedHosts. On any other L, Host is checked only once AllowedHosts
//     is set, and must then be loopback or listed.
//   - Origin, when the request has one: it must be listed in
//     AllowedOrigins, or be an http or https origin that is the request's
//     own (its host and port are the Host header, which the first rule
//     has vouched for), or, on a loopback L, a loopback origin
//     ("http://localhost:5173"). Anything else is refused, "null" (sandboxed
//     frames, file: pages, redirects) included.
//
// A refused request is answered 403 with a JSON-RPC error response
// (code -32010) whose message says whether the host or the origin was
// refused; it reaches no handler. A request without Origin (any client
// that is not a browser) is judged on Host alone.
//
// A server on a non-loopback address reachable by browsers (a LAN
// address, 0.0.0.0) should list its names in AllowedHosts: without the
// list its Host is not checked. A HostPolicy is a value, never modified by
// the handlers that copy it, and safe for concurrent use.
type HostPolicy struct {
	// AllowedHosts are Host header values accepted besides loopback ones:
	// a host name or address (any port), or host:port (that port only);
	// "*" accepts any host. Compared without regard to case; an empty
	// entry lists nothing.
	AllowedHosts []string
	// AllowedOrigins are Origin header values accepted besides the
	// request's own and, on a loopback address, loopback origins:
	// serialised origins as browsers send them
	// ("https://app.example.com", "http://localhost:5173"); "*" accepts
	// any, "null" included. Compared without regard to case.
	AllowedOrigins []string
	// Disabled turns the policy off: every Host and Origin is accepted.
	// For a server behind a proxy that checks them itself, or one no
	// browser can reach.
	Disabled bool
}

// Check judges a request whose Host header is host, whose Origin header is
// origin ("" for none), received on the local address local (nil if
// unknown: not loopback). It returns nil when the request is allowed, and
// otherwise a *codec.Error of code -32010 (codec.CodeForbidden) naming the
// host or the origin as refused.
func (p HostPolicy) Check(host, origin string, local net.Addr) error {
	if msg := p.refusal(host, origin, local); msg != "" {
		return codec.NewError(codec.CodeForbidden, msg)
	}
	return nil
}

// Allow applies the policy to r, received on the local address net/http
// records in its context (http.LocalAddrContextKey), and reports whether it
// may be served; a refused request has been answered 403 with a JSON-RPC
// error response.
func (p HostPolicy) Allow(w http.ResponseWriter, r *http.Request) bool {
	msg := p.refusalHTTP(r)
	if msg == "" {
		return true
	}
	httpjson.Error(w, http.StatusForbidden, codec.CodeForbidden, msg)
	return false
}

// refusalHTTP is refusal for a net/http request. The local address, a
// context lookup, is fetched only when the rule needs it.
func (p HostPolicy) refusalHTTP(r *http.Request) string {
	var origin string
	if v := r.Header["Origin"]; len(v) > 0 {
		origin = v[0]
	}
	if p.allowedAnywhere(r.Host, origin) {
		return ""
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return p.refusal(r.Host, origin, local)
}

// allowedAnywhere reports whether a request is allowed whatever its local
// address: the common case of a local client that is no browser, decided
// without looking the address up.
func (p HostPolicy) allowedAnywhere(host, origin string) bool {
	return p.Disabled || (origin == "" && len(p.AllowedHosts) == 0 && isLoopbackHost(host))
}

// refusal returns the message of the policy's refusal of a request, or ""
// when it is allowed.
func (p HostPolicy) refusal(host, origin string, local net.Addr) string {
	if p.Disabled {
		return ""
	}
	l := lazyLocal{addr: local} // on the stack: a closure here cost two allocations
	if !p.hostAllowed(host, &l) {
		return msgHostNotAllowed
	}
	if origin != "" && !p.originAllowed(host, origin, &l) {
		return msgOriginNotAllowed
	}
	return ""
}

// lazyLocal is a request's local address, asked whether it is a loopback
// one only when the rule needs it, and at most once.
type lazyLocal struct {
	addr            net.Addr
	known, loopback bool
}

// onLoopback reports whether the address is a loopback one.
func (l *lazyLocal) onLoopback() bool {
	if !l.known {
		l.known, l.loopback = true, isLoopbackAddr(l.addr)
	}
	return l.loopback
}

// hostAllowed checks a Host header.
func (p HostPolicy) hostAllowed(host string, local *lazyLocal) bool {
	if isLoopbackHost(host) {
		return true
	}
	if len(p.AllowedHosts) == 0 {
		return !local.onLoopback()
	}
	name, _ := splitHostPort(host)
	for _, a := range p.AllowedHosts {
		if a == "" {
			continue // an empty entry lists nothing; it must not match the name of a Host that has none ("[")
		}
		if a == "*" || strings.EqualFold(a, name) || strings.EqualFold(a, host) {
			return true
		}
	}
	return false
}

// originAllowed checks an Origin header of a request whose Host passed.
func (p HostPolicy) originAllowed(host, origin string, local *lazyLocal) bool {
	for _, a := range p.AllowedOrigins {
		if a == "*" || strings.EqualFold(a, origin) {
			return true
		}
	}
	hp, ok := originHost(origin)
	if !ok {
		return false // "null", and what is no http(s) origin
	}
	if host != "" && strings.EqualFold(hp, host) {
		return true // the request's own origin
	}
	return isLoopbackHost(hp) && local.onLoopback()
}

// originHost returns the host[:port] of a serialised http or https origin
// (scheme "://" host [":" port], nothing after), and whether origin is one.
func originHost(origin string) (string, bool) {
	var rest string
	switch {
	case len(origin) > len("http://") && strings.EqualFold(origin[:len("http://")], "http://"):
		rest = origin[len("http://"):]
	case len(origin) > len("https://") && strings.EqualFold(origin[:len("https://")], "https://"):
		rest = origin[len("https://"):]
	default:
		return "", false
	}
	if strings.ContainsAny(rest, "/?#@\\ \t") {
		return "", false // a path, query, user info: no origin
	}
	name, _ := splitHostPort(rest)
	return rest, name != ""
}

// isLoopbackAddr reports whether a local address is a loopback one.
func isLoopbackAddr(a net.Addr) bool {
	switch a := a.(type) {
	case *net.TCPAddr: // what net/http's and fasthttp's TCP listeners give
		return a.IP.IsLoopback()
	case nil:
		return false
	default:
		name, _ := splitHostPort(a.String())
		ip, err := netip.ParseAddr(name)
		return err == nil && ip.Unmap().IsLoopback()
	}
}

// isLoopbackHost reports whether host[:port] names a loopback host:
// localhost or a loopback address (IPv6 in brackets).
func isLoopbackHost(hostport string) bool {
	name, _ := splitHostPort(hostport)
	return isLoopbackName(name)
}

// isLoopbackName reports whether a host name is localhost or a loopback
// address.
func isLoopbackName(name string) bool {
	if name == "localhost" || strings.EqualFold(name, "localhost") { // spare EqualFold the usual spelling
		return true
	}
	if name == "" || !('0' <= name[0] && name[0] <= '9') && !strings.Contains(name, ":") {
		return false // no IPv4 (a digit first) nor IPv6 (colons) address: spare ParseAddr its error
	}
	ip, err := netip.ParseAddr(name)
	return err == nil && ip.Unmap().IsLoopback()
}

// splitHostPort splits host[:port], an IPv6 host in brackets, without
// allocating; the brackets are dropped. A host with colons and no
// brackets (a bare IPv6 address) is returned whole, with no port.
func splitHostPort(hp string) (host, port string) {
	if strings.HasPrefix(hp, "[") {
		end := strings.IndexByte(hp, ']')
		if end < 0 || strings.IndexByte(hp[1:end], '[') >= 0 {
			return "", ""
		}
		host, rest := hp[1:end], hp[end+1:]
		if rest == "" {
			return host, ""
		}
		if rest[0] != ':' || strings.ContainsAny(rest[1:], ":[]") {
			return "", "" // "[::1]x", "[127.0.0.1]::": no host, as net.SplitHostPort says
		}
		return host, rest[1:]
	}
	if strings.ContainsAny(hp, "[]") {
		return "", "" // "localhost:[": a bracket out of place, as net.SplitHostPort says
	}
	i := strings.LastIndexByte(hp, ':')
	if i < 0 || strings.IndexByte(hp[:i], ':') >= 0 {
		return hp, ""
	}
	return hp[:i], hp[i+1:]
}
