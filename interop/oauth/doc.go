// Package oauthinterop tests package oauth, mcpwire's OAuth 2.1 resource
// server, against a real OpenID provider: zitadel/oidc's op package,
// started in the test process on loopback, issuing JWT and opaque access
// tokens by the client-credentials grant. The official TypeScript SDK's
// client (sdkclient.mjs, run with the Node and the SDK that
// ../package.json pins) completes MCP's authorization flow there against
// the demo server. It is a Go module of its own so that the provider
// library stays out of mcpwire's go.mod; its tests are run by
// scripts/test. It has no code but its tests.
package oauthinterop
