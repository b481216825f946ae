package streamable

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/internal/httpjson"
	"github.com/mcpwire/mcpwire/transport"
)

// CORSOptions let web pages of other origins call an HTTP endpoint from a
// browser (Cross-Origin Resource Sharing): Options.CORS.
//
// A listed origin is allowed by the DNS-rebinding guard too, as if it were
// in Options.HostPolicy.AllowedOrigins; the Host check stays as it is. Any other
// Origin is still refused with 403, preflight included. A preflight
// (OPTIONS with Access-Control-Request-Method) from a listed origin is
// answered 204 with the methods of the endpoint (GET, POST, DELETE; GET
// and POST for the HTTP+SSE endpoint), the request headers MCP uses
// (Content-Type, Authorization, Mcp-Session-Id, MCP-Protocol-Version,
// Last-Event-ID, and AllowedHeaders), MaxAge, and, when asked by Chromium's
// Private Network Access, Access-Control-Allow-Private-Network. Every
// answer to a listed origin, errors included, carries
// Access-Control-Allow-Origin and exposes Mcp-Session-Id,
// MCP-Protocol-Version, WWW-Authenticate and Retry-After to the page's
// script; every answer carries Vary: Origin. Put authentication in
// Options.Middleware, inside CORS, so that its refusals carry them too.
type CORSOptions struct {
	// AllowedOrigins are the origins whose pages may call the endpoint,
	// as browsers send them ("https://app.example.com",
	// "http://localhost:5173"). "*" allows every origin, without
	// credentials (cookies, HTTP authentication, client certificates):
	// on a server reached on a loopback address that lets any web page
	// the user visits drive it, so list origins wherever you can.
	AllowedOrigins []string
	// AllowCredentials lets the listed origins (not those "*" admits)
	// send credentials: Access-Control-Allow-Credentials: true.
	AllowCredentials bool
	// AllowedHeaders are request headers allowed besides MCP's own (an
	// API key header of your own, say).
	AllowedHeaders []string
	// MaxAge is how long a browser may reuse a preflight's answer
	// (Access-Control-Max-Age; zero: not sent, browsers then ask again
	// within seconds).
	MaxAge time.Duration
}

// corsHeaders are the request headers MCP's HTTP transports use.
var corsHeaders = []string{"Content-Type", "Authorization", "Mcp-Session-Id", "MCP-Protocol-Version", "Last-Event-ID"}

// corsExposed are the response headers a page's script may read: those
// of MCP, and those of the refusals (401, 429, 503) it must act on.
const corsExposed = "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After"

// cors answers browsers' cross-origin requests for one endpoint.
type cors struct {
	origins []string // listed origins; "*" among them admits any
	any     bool
	creds   bool
	methods string // Access-Control-Allow-Methods
	headers string // Access-Control-Allow-Headers
	maxAge  string // Access-Control-Max-Age, "" for none
}

// newCORS returns the CORS of an endpoint serving methods, or nil when o
// allows no origin.
func newCORS(o *CORSOptions, methods ...string) *cors {
	if o == nil || len(o.AllowedOrigins) == 0 {
		return nil
	}
	c := &cors{
		origins: slices.Clone(o.AllowedOrigins),
		any:     slices.Contains(o.AllowedOrigins, "*"),
		creds:   o.AllowCredentials,
		methods: strings.Join(methods, ", "),
		headers: strings.Join(append(slices.Clone(corsHeaders), o.AllowedHeaders...), ", "),
	}
	if o.MaxAge > 0 {
		c.maxAge = strconv.FormatInt(int64(o.MaxAge/time.Second), 10)
	}
	return c
}

// hostPolicy is the HostPolicy of the handlers: o's, with the origins of
// its CORS allowed too.
func (o *Options) hostPolicy() transport.HostPolicy {
	p := o.HostPolicy
	if o.CORS != nil {
		p.AllowedOrigins = append(slices.Clone(p.AllowedOrigins), o.CORS.AllowedOrigins...)
	}
	return p
}

// listed reports whether origin is one the page of which may call: listed
// explicitly (exact), or admitted by "*".
func (c *cors) listed(origin string) (ok, exact bool) {
	for _, a := range c.origins {
		if a != "*" && strings.EqualFold(a, origin) {
			return true, true
		}
	}
	return c.any, false
}

// admit runs the DNS-rebinding guard and CORS in front of an endpoint's
// methods, and reports whether the request is still to be served: false
// when it has been answered (refused, or a preflight).
func admit(g transport.HostPolicy, c *cors, w http.ResponseWriter, r *http.Request) bool {
	if c != nil {
		w.Header().Add("Vary", "Origin")
	}
	if !g.Allow(w, r) {
		return false
	}
	return c == nil || !c.serve(w, r)
}

// serve sets the CORS headers of a request the guard let through, and
// answers it when it is a preflight or another OPTIONS (reporting true).
func (c *cors) serve(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	ok, exact := false, false
	if origin != "" {
		ok, exact = c.listed(origin)
	}
	hd := w.Header()
	switch {
	case !ok:
	case exact && c.creds:
		hd.Set("Access-Control-Allow-Origin", origin)
		hd.Set("Access-Control-Allow-Credentials", "true")
	case c.any:
		hd.Set("Access-Control-Allow-Origin", "*")
	default:
		hd.Set("Access-Control-Allow-Origin", origin)
	}
	method := r.Header.Get("Access-Control-Request-Method")
	switch {
	case r.Method != http.MethodOptions:
		if ok {
			hd.Set("Access-Control-Expose-Headers", corsExposed)
		}
		return false
	case origin == "" || method == "": // not a preflight: what is allowed
		hd.Set("Allow", c.methods+", OPTIONS")
		w.WriteHeader(http.StatusNoContent)
	case !ok:
		httpjson.Error(w, http.StatusForbidden, codec.CodeForbidden, "Forbidden: origin not allowed")
	case !slices.Contains(strings.Split(c.methods, ", "), method):
		hd.Set("Allow", c.methods+", OPTIONS")
		httpjson.Error(w, http.StatusMethodNotAllowed, codec.CodeInvalidRequest, "Method not allowed: "+strconv.Quote(method))
	default:
		hd.Add("Vary", "Access-Control-Request-Method")
		hd.Add("Vary", "Access-Control-Request-Headers")
		hd.Set("Access-Control-Allow-Methods", c.methods)
		hd.Set("Access-Control-Allow-Headers", c.headers)
		if c.maxAge != "" {
			hd.Set("Access-Control-Max-Age", c.maxAge)
		}
		if strings.EqualFold(r.Header.Get("Access-Control-Request-Private-Network"), "true") {
			hd.Set("Access-Control-Allow-Private-Network", "true")
		}
		w.WriteHeader(http.StatusNoContent)
	}
	return true
}
