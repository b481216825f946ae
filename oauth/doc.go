// Package oauth is the resource-server half of OAuth 2.1 as the MCP
// authorization specification uses it: a server that accepts access
// tokens issued by an authorization server it trusts.
//
//   - ResourceMetadata and MetadataHandler serve RFC 9728 protected
//     resource metadata (/.well-known/oauth-protected-resource, and the
//     form with the resource's path appended: MetadataPath), which tells
//     a client where to get a token.
//   - Bearer checks each request's "Authorization: Bearer" token: as
//     net/http middleware (Wrap, RequireBearer) in front of MCP's
//     Streamable HTTP handler, a JSON-RPC /rpc endpoint or a WebSocket
//     upgrade, and as a middleware.Authenticator for middleware.Auth on
//     stream transports (the token in params._meta.authorization).
//   - A TokenVerifier decides whether a token is accepted: JWTVerifier
//     for JWT access tokens (RFC 9068) signed with the issuer's published
//     keys, IntrospectionVerifier for opaque tokens (RFC 7662). Discover
//     reads an issuer's metadata (RFC 8414, OpenID Connect Discovery).
//   - The accepted token's Principal (issuer, subject, client, scopes,
//     audience, expiry) reaches handlers through the request's context:
//     FromContext, or middleware.PrincipalFromContext, which finds it
//     too. RequireScopes checks the scopes an operation needs and names
//     those missing.
//
// The client's half is Authorizer: it obtains access tokens as the MCP
// authorization specification says (protected resource metadata,
// authorization server discovery, the authorization code grant with PKCE
// or the client credentials and JWT bearer grants, dynamic or
// pre-registration, refresh, step up on insufficient_scope, DPoP) and
// adds them to an MCP client's HTTP requests (Authorizer.Transport;
// streamable.ClientOptions.Authorizer).
// A TokenStore keeps the tokens; a RedirectHandler, which the application
// provides (LoopbackRedirect for a native one), takes the user to the
// authorization server and brings the code back.
//
// # What is checked, in which order, and what each failure answers
//
// Over HTTP (Bearer.Wrap), in this order; the JSON-RPC error is the body,
// id null:
//
//	check                                      status  WWW-Authenticate: Bearer …                         JSON-RPC
//	access_token in the query string           400     error="invalid_request", resource_metadata        -32009
//	no Authorization header, or not Bearer     401     scope, resource_metadata                          -32009
//	token syntax, alg allow-list, signature    401     error="invalid_token", scope, resource_metadata    -32009
//	exp / nbf / iat (with leeway)              401     error="invalid_token", …                           -32009
//	iss, then aud (this resource, RFC 8707)    401     error="invalid_token", …                           -32009
//	introspection: active, exp, nbf, iss, aud  401     error="invalid_token", …                           -32009
//	the token cannot be checked now            503     (none)                                             -32603
//	a required scope is missing                403     error="insufficient_scope", scope=<missing>, …    -32010
//
// Through middleware.Auth the same checks give the same JSON-RPC errors.
// A -32010 carries data {"scope": "<missing scopes>"}.
//
// # Security considerations
//
// A token, a client secret or an authorization code never appears in a
// log record, an error's text or a response: refusals and records name a
// reason from this package's own list (ErrTokenExpired…), never a
// library's error text. The introspection cache is keyed by the token's
// SHA-256 digest. Tokens sent in a URL are refused, as OAuth 2.1 and MCP
// require, because URLs are logged by proxies and kept in histories.
// "none" and HMAC algorithms are never accepted, so a token signed with
// the issuer's public key as an HMAC secret fails. A token signed with a
// key ID the cached key set lacks makes the verifier fetch the set again
// at most once per JWTOptions.UnknownKeyRefreshInterval, without holding
// a request for long, so key rotation needs no restart and forged key IDs cannot flood the
// issuer. A session id is not a credential: binding a session to the
// Principal that opened it (Principal.String) is the transport's part.
package oauth
