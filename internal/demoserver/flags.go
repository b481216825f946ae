package demoserver

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/redisstore"
	"github.com/mcpwire/mcpwire/transport"
)

// config is what the flags chose.
type config struct {
	listen      string // "stdio" or an address for transport.Listen
	framing     codec.Framing
	verbose     bool
	logJSON     bool          // -log-json
	grace       time.Duration // -shutdown-timeout
	pageSize    int           // -page-size
	watch       time.Duration // -watch-interval
	inline      bool          // -inline
	jsonrpc1    bool          // -jsonrpc1
	maxInFlight int           // -max-inflight
	overload    pool.Overload // -overload
	metrics     string        // -metrics: HOST:PORT, or "" for none
	adaptive    bool          // -adaptive
	authToken   string        // -auth-token: "" for none
	forbid      []string      // -forbid
	rate        float64       // -rate: 0 for no limit
	fastRPC     string        // -fast-rpc: HOST:PORT, or "" for none
	httpServer  string        // -http-server: httpServerFast or httpServerNet
	keepAlive   time.Duration // -keepalive: 0 for no pings
	cors        []string      // -cors: allowed origins, nil for none
	maxSessions int           // -max-sessions: 0 for no limit
	maxPerPeer  int           // -max-sessions-per-peer: 0 for no limit
	sessionIdle time.Duration // -session-idle: 0 for never
	readTimeout time.Duration // -read-timeout
	oauth       oauthConfig   // -oauth-*
	redis       string        // -redis: a redis:// URL, or "" for none
	redisPrefix string        // -redis-prefix
	instance    string        // -instance: never "" once parsed
}

// The values of -http-server.
const (
	httpServerFast = "fast" // fasthttp at the front door (front.go)
	httpServerNet  = "net"  // net/http for every endpoint
)

// syntaxError is an error of flag.FlagSet.Parse, which the flag set has
// also written on its output.
type syntaxError struct{ error }

func (e syntaxError) Unwrap() error { return e.error }

// parseFlags reads the command's flags in args into a config; the flag
// set it returns is for usage. flag's own messages go to output. Its error
// is flag.ErrHelp for -h, a syntaxError when flag could not parse args
// (flag has said why on output), or another usage error: a value out of
// range, an address of the wrong form, arguments left over.
func parseFlags(args []string, output io.Writer) (*flag.FlagSet, config, error) {
	fs := flag.NewFlagSet("demoserver", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.Usage = func() {} // printed by the caller: on stdout when asked for, after the error otherwise
	listen := fs.String("listen", "stdio", "stdio, tcp://HOST:PORT, unix://PATH or http://HOST:PORT")
	framing := fs.String("framing", "newline", "newline or header")
	verbose := fs.Bool("v", false, "log at debug level")
	logJSON := fs.Bool("log-json", false, "log JSON records, one object a line, instead of text")
	grace := fs.Duration("shutdown-timeout", 5*time.Second, "how long requests in flight may run on after SIGINT/SIGTERM")
	pageSize := fs.Int("page-size", mcp.DefaultPageSize, "the most items of one MCP list answer (tools, resources, templates, prompts)")
	watch := fs.Duration("watch-interval", defaultWatchInterval, "how often test://watched-resource changes while a session is subscribed")
	inline := fs.Bool("inline", true, "run the cheap plain methods (the specification's examples, echo) inline on the reader;\nfalse puts them on the pool like every other method, to measure the hand-off\n(MCP's own inline methods, initialize and ping among them, stay inline)")
	jsonrpc1 := fs.Bool("jsonrpc1", false, "accept JSON-RPC 1.0 objects beside 2.0 ones on every stream (stdio, TCP, Unix), on /rpc\n(HTTP POST, and -fast-rpc) and on /ws, each answered in its own version (MCP's /mcp\nand /sse stay 2.0)")
	fs.Bool("handoff", false, "no effect, kept for old scripts: every request for the pool goes to its workers")
	maxInFlight := fs.Int("max-inflight", conn.DefaultMaxInFlight, "`N` requests one connection may have on the pool at once, queued or running;\npast it -overload applies")
	overload := fs.String("overload", "block", "when a connection's -max-inflight (or the server's limit) is full, `block|reject`:\nstop reading that connection, or answer -32000 with data.retryAfterMs at once")
	metricsAddr := fs.String("metrics", "", "serve Prometheus metrics at http://`ADDR`/metrics (HOST:PORT; port 0 picks one,\nlogged as metrics=URL): mcpwire_*, and the standard go_* and process_*")
	authToken := fs.String("auth-token", "", "require `TOKEN` on every call: \"Authorization: Bearer TOKEN\" over HTTP and WebSocket,\nparams._meta.authorization \"Bearer TOKEN\" on stdio, TCP and Unix sockets;\nwithout it -32009 (HTTP 401)")
	oauthIssuer := fs.String("oauth-issuer", "", "accept OAuth 2.1 access tokens of the authorization server whose issuer is `URL`, instead\nof -auth-token: its metadata is discovered (RFC 8414, OpenID Connect), JWTs are checked\nwith its keys (iss, aud, exp, signature), opaque tokens by introspection (RFC 7662)\nwhen its metadata has the endpoint and -oauth-client-id is given; with -listen http://…\nthe protected resource metadata (RFC 9728) is served at /.well-known/oauth-protected-resource\n(and …/mcp), named in every 401 and 403; without a valid token -32009 (HTTP 401)")
	oauthAudience := fs.String("oauth-audience", "", "with -oauth-issuer, the `URI` tokens must be issued for (aud, RFC 8707): this server's\nidentifier (default, with -listen http://…: http://HOST:PORT/mcp; required otherwise)")
	oauthScopes := fs.String("oauth-scopes", "", "with -oauth-issuer, the scopes calls of tools need, as comma-separated `TOOL:SCOPE`\npairs (echo:demo.read,add:demo.write); without one -32010 with data.scope (HTTP 403,\nWWW-Authenticate error=\"insufficient_scope\", scope=\"…\"); tools/list lists every tool")
	oauthClientID := fs.String("oauth-client-id", "", "with -oauth-issuer, this server's client `ID` at the issuer's introspection endpoint")
	oauthClientSecret := fs.String("oauth-client-secret", "", "with -oauth-client-id, its `SECRET` (client_secret_basic)")
	forbid := fs.String("forbid", "", "refuse the comma-separated `METHODS` to every caller with -32010 (HTTP 403)")
	rateFlag := fs.Float64("rate", 0, "allow each peer `N` calls per second, in bursts of N (a session; over HTTP POST\nan IP address); past it -32011 with data.retryAfterMs (HTTP 429). 0: no limit")
	fastRPC := fs.String("fast-rpc", "", "with -listen http://…, also serve JSON-RPC over HTTP POST (as /rpc) on fasthttp at\n`ADDR` (HOST:PORT, any path but /mcp; port 0 picks one, logged as fastrpc=URL), and\nStreamable HTTP (as /mcp) at its path /mcp (logged as fastmcp=URL): the same sessions,\nanswers and statuses, with the answers of pipelined requests written together")
	httpServer := fs.String("http-server", httpServerFast, "with -listen http://…, the server of /rpc and /mcp: `fast|net`. fast: fasthttp takes\nthe connections and serves /rpc and /mcp, and hands a connection whose first request\nis for another endpoint (/sse, /ws) to net/http, which serves it from then on (that first request's\nheader bounded at 8 KiB); net: net/http serves every endpoint")
	keepAlive := fs.Duration("keepalive", 0, "ping every MCP session's client every `INTERVAL` and close a session whose client\nmisses three in a row (0: no pings)")
	cors := fs.String("cors", "", "with -listen http://…, let web pages of the comma-separated `ORIGINS` call /mcp and /sse\n(CORS; \"*\" for any origin, without credentials); listed origins pass the Origin check")
	maxSessions := fs.Int("max-sessions", streamable.DefaultMaxSessions, "with -listen http://…, hold at most `N` MCP sessions (/mcp and /sse together); a new one\npast it is refused with HTTP 503 and -32000, data.limit \"maxSessions\" (0: no limit)")
	maxPerPeer := fs.Int("max-sessions-per-peer", streamable.DefaultMaxSessionsPerPrincipal, "with -listen http://…, hold at most `N` MCP sessions of one client: an IP address, or,\nwith -auth-token, the token's holders together; past it HTTP 503 and -32000,\ndata.limit \"maxSessionsPerPrincipal\" (0: no limit)")
	sessionIdle := fs.Duration("session-idle", streamable.DefaultSessionTimeout, "with -listen http://…, end an MCP session whose client has sent no request for `D`\n(pings and responses aside) and has none running nor, on /mcp, a stream open (0: never)")
	readTimeout := fs.Duration("read-timeout", transport.DefaultHTTPReadTimeout, "with -listen http://…, how long a client may take to send a request's body once its\nheader is in (and its header, up to 10s), on every endpoint and -fast-rpc; past it the\nrequest is answered 400 if it can be and the connection closed")
	redisURL := fs.String("redis", "", "share what several instances must share through the Redis (or Valkey) at `URL`\n(redis://[USER:PASSWORD@]HOST:PORT/DB, rediss:// for TLS), with every other demo\nserver given the same URL and -redis-prefix (docs/scale-out.md); a Redis that does not\nanswer is logged, not fatal: the server serves on and uses it once it answers")
	redisPrefix := fs.String("redis-prefix", redisstore.DefaultPrefix, "with -redis, the `PREFIX` of every key and channel: servers sharing a Redis but not\ntheir state each need their own")
	instance := fs.String("instance", "", "this server's `NAME` among the instances sharing -redis: on every log line (instance=NAME)\nand in -metrics (mcpwire_instance_info{instance=\"NAME\"}) (default: the host name and\nthe process id, HOST-PID)")
	adaptive := fs.Bool("adaptive", false, "limit the requests of all connections together by an adaptive limit that follows\nmeasured latency, instead of a fixed one the size of the pool and its queue")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return fs, config{}, err
		}
		return fs, config{}, syntaxError{err}
	}
	f, err := codec.ParseFraming(*framing)
	switch {
	case err != nil, *listen == "stdio":
	case isHTTP(*listen):
		if _, _, serr := net.SplitHostPort(strings.TrimPrefix(*listen, "http://")); serr != nil {
			err = fmt.Errorf("-listen %s: want http://HOST:PORT: %w", *listen, serr)
		}
	default:
		_, _, err = transport.ParseAddr(*listen)
	}
	if err == nil && (*pageSize <= 0 || *watch <= 0) {
		err = fmt.Errorf("-page-size and -watch-interval must be positive")
	}
	if err == nil && *maxInFlight <= 0 {
		err = fmt.Errorf("-max-inflight must be positive")
	}
	var ov pool.Overload
	if err == nil {
		ov, err = parseOverload(*overload)
	}
	if err == nil && *metricsAddr != "" {
		if _, _, serr := net.SplitHostPort(*metricsAddr); serr != nil {
			err = fmt.Errorf("-metrics %s: want HOST:PORT: %w", *metricsAddr, serr)
		}
	}
	if err == nil && *fastRPC != "" {
		if !isHTTP(*listen) {
			err = fmt.Errorf("-fast-rpc needs -listen http://HOST:PORT")
		} else if _, _, serr := net.SplitHostPort(*fastRPC); serr != nil {
			err = fmt.Errorf("-fast-rpc %s: want HOST:PORT: %w", *fastRPC, serr)
		}
	}
	if err == nil && *httpServer != httpServerFast && *httpServer != httpServerNet {
		err = fmt.Errorf("-http-server %s: want %s or %s", *httpServer, httpServerFast, httpServerNet)
	}
	if err == nil && (*rateFlag < 0 || math.IsNaN(*rateFlag) || math.IsInf(*rateFlag, 0)) {
		err = fmt.Errorf("-rate %v: want a number of calls per second, 0 for no limit", *rateFlag)
	}
	if err == nil && *keepAlive < 0 {
		err = fmt.Errorf("-keepalive %v: want a positive interval, 0 for no pings", *keepAlive)
	}
	if err == nil && *readTimeout <= 0 {
		err = fmt.Errorf("-read-timeout %v: want a positive duration", *readTimeout)
	}
	if err == nil && *cors != "" && !isHTTP(*listen) {
		err = fmt.Errorf("-cors needs -listen http://HOST:PORT")
	}
	if err == nil && (*maxSessions < 0 || *maxPerPeer < 0) {
		err = fmt.Errorf("-max-sessions and -max-sessions-per-peer want a number of sessions, 0 for no limit")
	}
	if err == nil && *sessionIdle < 0 {
		err = fmt.Errorf("-session-idle %v: want a positive duration, 0 for never", *sessionIdle)
	}
	if err == nil && *instance != "" && !instanceNamePattern.MatchString(*instance) {
		err = fmt.Errorf("-instance %q: want 1 to 64 letters, digits, '.', '-' and '_', starting with a letter or digit", *instance)
	}
	if err == nil && *redisURL != "" {
		err = checkRedisURL(*redisURL)
	}
	if err == nil && *redisPrefix == "" && *redisURL != "" {
		err = fmt.Errorf("-redis-prefix: want a prefix (default %q)", redisstore.DefaultPrefix)
	}
	var oc oauthConfig
	if err == nil {
		oc, err = parseOAuth(*listen, *authToken, *oauthIssuer, *oauthAudience, *oauthScopes, *oauthClientID, *oauthClientSecret)
	}
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if err != nil {
		return fs, config{}, err
	}
	return fs, config{
		listen: *listen, framing: f, verbose: *verbose, logJSON: *logJSON, grace: *grace, pageSize: *pageSize, watch: *watch,
		inline: *inline, jsonrpc1: *jsonrpc1, maxInFlight: *maxInFlight, overload: ov, metrics: *metricsAddr, adaptive: *adaptive,
		authToken: *authToken, forbid: splitList(*forbid), rate: *rateFlag, fastRPC: *fastRPC, httpServer: *httpServer,
		keepAlive: *keepAlive, cors: splitList(*cors), readTimeout: *readTimeout,
		maxSessions: *maxSessions, maxPerPeer: *maxPerPeer, sessionIdle: *sessionIdle, oauth: oc,
		redis: *redisURL, redisPrefix: *redisPrefix, instance: instanceName(*instance),
	}, nil
}

// usage prints the command's help to w.
func usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, `Usage: demoserver [flags]

Serves MCP (the conformance suite's fixtures and echo) and, on the same
stream, the JSON-RPC 2.0 specification's example methods, over stdio (the
default), TCP, a Unix socket or HTTP. Logs go to stderr. Over HTTP:
  /mcp  MCP Streamable HTTP        /sse  MCP HTTP+SSE (2024-11-05)
  /rpc  JSON-RPC over HTTP POST    /ws   JSON-RPC over WebSocket

For load tests, two plain JSON-RPC methods hold a worker on the pool:
  sleep        {"ms": N}                sleeps N ms (0..10000), returns N
  cached_sleep {"ms": N, "key": STRING} the same behind the response cache
               (60 s), returns {"ms": N, "key": KEY, "runs": R}, R counting
               the handler's runs: single flight and hits show in it

Flags:
`)
	out := fs.Output()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(out)
}

// parseOverload reads -overload.
func parseOverload(s string) (pool.Overload, error) {
	switch s {
	case "block":
		return pool.Block, nil
	case "reject":
		return pool.Reject, nil
	}
	return 0, fmt.Errorf("-overload %s: want block or reject", s)
}

// splitList reads a comma-separated flag: its non-empty items.
func splitList(s string) []string {
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// parseOAuth checks the -oauth-* flags against each other and against
// -listen and -auth-token.
func parseOAuth(listen, authToken, issuer, audience, scopes, clientID, clientSecret string) (oauthConfig, error) {
	if issuer == "" {
		if audience != "" || scopes != "" || clientID != "" || clientSecret != "" {
			return oauthConfig{}, errors.New("-oauth-audience, -oauth-scopes, -oauth-client-id and -oauth-client-secret need -oauth-issuer")
		}
		return oauthConfig{}, nil
	}
	switch {
	case authToken != "":
		return oauthConfig{}, errors.New("-auth-token and -oauth-issuer cannot be used together: -auth-token is one token shared by every caller, -oauth-issuer checks each caller's own; choose one")
	case audience == "" && !isHTTP(listen):
		return oauthConfig{}, errors.New("-oauth-issuer with -listen stdio, tcp://… or unix://… needs -oauth-audience: this server has no URL of its own")
	case clientSecret != "" && clientID == "":
		return oauthConfig{}, errors.New("-oauth-client-secret needs -oauth-client-id")
	}
	ts, err := parseToolScopes(scopes)
	if err != nil {
		return oauthConfig{}, err
	}
	return oauthConfig{issuer: issuer, audience: audience, clientID: clientID, clientSecret: clientSecret, toolScopes: ts}, nil
}
