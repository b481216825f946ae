// Package oauthinterop tests package oauth, mcpwire's OAuth 2.1 resource
// server, against a real OpenID provider: zitadel/oidc's op package,
// started in the test process on loopback, issuing JWT and opaque access
// tokens by the client-credentials grant. It is a Go module of its own so
// that the provider library stays out of mcpwire's go.mod; its tests are
// run by scripts/test. It has no code but its tests.
package oauthinterop
