package demoserver

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/oauth"
)

// oauthConfig is what the -oauth-* flags chose: an OAuth 2.1 resource
// server in front of every transport, in place of -auth-token.
type oauthConfig struct {
	issuer       string              // -oauth-issuer: "" for none
	audience     string              // -oauth-audience: "" for the server's own /mcp URL
	clientID     string              // -oauth-client-id: introspection's credentials
	clientSecret string              // -oauth-client-secret
	toolScopes   map[string][]string // -oauth-scopes: tool name → scopes
}

// parseToolScopes reads -oauth-scopes: comma-separated TOOL:SCOPE pairs,
// a tool named as often as it needs scopes.
func parseToolScopes(s string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, item := range splitList(s) {
		tool, scope, ok := strings.Cut(item, ":")
		tool, scope = strings.TrimSpace(tool), strings.TrimSpace(scope)
		if !ok || tool == "" || scope == "" || strings.ContainsAny(scope, " \t\"\\") {
			return nil, fmt.Errorf("-oauth-scopes %q: want TOOL:SCOPE pairs, comma-separated (a scope has no spaces or quotes)", item)
		}
		if !slices.Contains(out[tool], scope) {
			out[tool] = append(out[tool], scope)
		}
	}
	return out, nil
}

// discoveryTimeout bounds the discovery of the issuer's metadata and the
// first fetch of its keys at start.
const discoveryTimeout = 10 * time.Second

// resourceServer is the demo's OAuth resource server (-oauth-issuer).
type resourceServer struct {
	bearer      *oauth.Bearer
	metadata    http.Handler // RFC 9728 metadata, served at paths
	paths       []string     // where metadata is served
	metadataURL string
	close       func()
}

// newResourceServer discovers o's issuer and builds the verifier of its
// tokens for the resource audience: JWT access tokens checked with the
// issuer's keys and, when its metadata has an introspection endpoint and
// -oauth-client-id is given, opaque tokens by introspection.
func newResourceServer(ctx context.Context, o oauthConfig, audience string, log *slog.Logger) (*resourceServer, error) {
	ctx, cancel := context.WithTimeout(ctx, discoveryTimeout)
	defer cancel()
	md, err := oauth.Discover(ctx, nil, o.issuer)
	if err != nil {
		return nil, fmt.Errorf("-oauth-issuer: %w", err)
	}
	jwtV, err := oauth.NewJWTVerifier(ctx, &oauth.JWTOptions{Issuer: o.issuer, Audience: audience, JWKSURL: md.JWKSURI, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("-oauth-issuer: %w", err)
	}
	v := tokenVerifier{jwt: jwtV}
	if md.IntrospectionEndpoint != "" && o.clientID != "" {
		v.opaque, err = oauth.NewIntrospectionVerifier(ctx, &oauth.IntrospectionOptions{
			Issuer: o.issuer, Endpoint: md.IntrospectionEndpoint, Audience: audience,
			ClientID: o.clientID, ClientSecret: o.clientSecret, Logger: log,
		})
		if err != nil {
			jwtV.Close()
			return nil, fmt.Errorf("-oauth-issuer: %w", err)
		}
	}
	var scopes []string
	for _, ss := range o.toolScopes {
		for _, s := range ss {
			if !slices.Contains(scopes, s) {
				scopes = append(scopes, s)
			}
		}
	}
	slices.Sort(scopes)
	h, err := oauth.MetadataHandler(oauth.ResourceMetadata{
		Resource: audience, AuthorizationServers: []string{o.issuer}, ScopesSupported: scopes,
		ResourceName: "mcpwire demo server",
	})
	if err != nil {
		jwtV.Close()
		return nil, fmt.Errorf("-oauth-audience %s: %w", audience, err)
	}
	p, _ := oauth.MetadataPath(audience) // audience was checked by MetadataHandler
	u, _ := oauth.MetadataURL(audience)
	paths := []string{p}
	if p != oauth.WellKnownResourcePath {
		paths = append(paths, oauth.WellKnownResourcePath)
	}
	bearer := oauth.NewBearer(v, &oauth.BearerOptions{ResourceMetadataURL: u, Logger: log})
	return &resourceServer{bearer: bearer, metadata: h, paths: paths, metadataURL: u, close: func() { jwtV.Close() }}, nil
}

// tokenVerifier checks a JWT access token (three dot-separated parts)
// with the issuer's keys, and any other token by introspection when it
// can.
type tokenVerifier struct {
	jwt    *oauth.JWTVerifier
	opaque *oauth.IntrospectionVerifier // nil: JWTs only
}

func (v tokenVerifier) VerifyToken(ctx context.Context, token string) (*oauth.Principal, error) {
	if v.opaque != nil && strings.Count(token, ".") != 2 {
		return v.opaque.VerifyToken(ctx, token)
	}
	return v.jwt.VerifyToken(ctx, token)
}
