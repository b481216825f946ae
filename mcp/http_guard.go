package mcp

import (
	"net"

	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/httpjson"
)

// Protection against DNS rebinding: a web page whose host name an attacker
// points at 127.0.0.1 makes the browser send requests to a local server
// with the attacker's Host and Origin. A server reached on a loopback
// address accepts only loopback names in Host (localhost, 127.0.0.1,
// [::1], or AllowedHosts) and only loopback or listed origins; every
// server refuses an Origin that is neither its own nor listed.

// guard holds the allow lists of HTTPOptions.
type guard struct {
	hosts, origins []string
}

// allow checks r's Host and Origin, answering 403 itself when refused.
func (g guard) allow(w http.ResponseWriter, r *http.Request) bool {
	switch {
	case !g.hostAllowed(r):
		httpjson.Error(w, http.StatusForbidden, codec.CodeForbidden, "Forbidden: host not allowed")
	case !g.originAllowed(r):
		httpjson.Error(w, http.StatusForbidden, codec.CodeForbidden, "Forbidden: origin not allowed")
	default:
		return true
	}
	return false
}

// hostAllowed checks r's Host header.
func (g guard) hostAllowed(r *http.Request) bool {
	list := g.hosts
	if len(list) == 0 && !onLoopback(r) {
		return true
	}
	name, _ := splitHost(r.Host)
	if isLoopbackName(name) {
		return true
	}
	for _, a := range list {
		if a == "*" || strings.EqualFold(a, name) || strings.EqualFold(a, r.Host) {
			return true
		}
	}
	return false
}

// originAllowed checks r's Origin header, if any.
func (g guard) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	for _, a := range g.origins {
		if a == "*" || strings.EqualFold(a, origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false // "null" and the like
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true // the request's own origin
	}
	name, _ := splitHost(u.Host)
	return onLoopback(r) && isLoopbackName(name)
}

// onLoopback reports whether r came in on a loopback address of this
// machine.
func onLoopback(r *http.Request) bool {
	switch a := r.Context().Value(http.LocalAddrContextKey).(type) {
	case *net.TCPAddr: // what net/http's TCP listeners give: no formatting
		return a.IP.IsLoopback()
	case net.Addr:
		host, _ := splitHost(a.String())
		ip, err := netip.ParseAddr(host)
		return err == nil && ip.Unmap().IsLoopback()
	}
	return false
}

// splitHost splits host[:port] (IPv6 in brackets) and drops the brackets.
func splitHost(hp string) (host, port string) {
	if h, p, err := net.SplitHostPort(hp); err == nil {
		return h, p
	}
	return strings.TrimSuffix(strings.TrimPrefix(hp, "["), "]"), ""
}

// isLoopbackName reports whether a host name is localhost or a loopback
// address.
func isLoopbackName(name string) bool {
	if strings.EqualFold(name, "localhost") {
		return true
	}
	if i := strings.IndexByte(name, '%'); i >= 0 { // a zone
		name = name[:i]
	}
	ip, err := netip.ParseAddr(name)
	return err == nil && ip.Unmap().IsLoopback()
}
