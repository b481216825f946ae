package oauth

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// token returns the token to send to endpoint (key): the stored one,
// refreshed first if it has expired and can be; nil if there is none
// usable.
func (a *Authorizer) token(ctx context.Context, key string) (*Token, error) {
	t, err := a.o.Store.Token(ctx, key)
	if err != nil || t == nil || t.Token == nil {
		return nil, err
	}
	if t.Valid() {
		return t, nil
	}
	a.flow.Lock()
	defer a.flow.Unlock()
	if cur, err := a.o.Store.Token(ctx, key); err == nil && cur != nil && cur.Token != nil && cur.Valid() {
		return cur, nil // renewed meanwhile
	}
	if t.RefreshToken == "" {
		return nil, nil
	}
	md, err := a.metadata(ctx, t.Issuer)
	if err != nil {
		return nil, nil // the flow starts over at the 401
	}
	return a.renew(ctx, key, md, t), nil
}

// renew refreshes t and stores the result, or returns nil when that
// failed (the refresh token expired, was revoked…).
func (a *Authorizer) renew(ctx context.Context, key string, md *ServerMetadata, t *Token) *Token {
	tok, err := a.refresh(ctx, md, t)
	if err != nil {
		a.o.Logger.InfoContext(ctx, "oauth: refreshing the access token failed", "issuer", md.Issuer, "error", err)
		return nil
	}
	nt := &Token{Token: tok, Issuer: t.Issuer, Resource: t.Resource, Scope: t.Scope}
	if err := a.o.Store.SetToken(ctx, key, nt); err != nil {
		return nil
	}
	return nt
}

// authorize obtains a new token for endpoint after its server answered
// the request sent with used (nil: none) with challenge c: 401, or 403
// insufficient_scope (stepUp). A token another request obtained
// meanwhile is taken as it is.
func (a *Authorizer) authorize(ctx context.Context, endpoint *url.URL, used *Token, c challenge, stepUp bool) (*Token, error) {
	a.flow.Lock()
	defer a.flow.Unlock()
	key := endpointKey(endpoint)
	if cur, err := a.o.Store.Token(ctx, key); err == nil && cur != nil && cur.Token != nil && cur.Valid() &&
		(used == nil || cur.AccessToken != used.AccessToken) && (!stepUp || hasScopes(cur.Scope, c.scope)) {
		return cur, nil
	}
	prm, err := a.resourceMetadata(ctx, endpoint, c)
	if err != nil {
		return nil, err
	}
	issuer := prm.AuthorizationServers[0]
	md, err := a.metadata(ctx, issuer)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAuthorization, err)
	}
	// An expired or revoked token of the same server and scope: its
	// refresh token first.
	if !stepUp && used != nil && used.RefreshToken != "" && used.Issuer == issuer && used.Resource == prm.Resource {
		if t := a.renew(ctx, key, md, used); t != nil {
			return t, nil
		}
	}
	scope := a.scope(c, prm, md, used, stepUp)
	get := a.authorizationCode
	switch a.o.Grant {
	case ClientCredentials:
		get = a.clientCredentials
	case JWTBearer:
		get = a.jwtBearer
	}
	tok, err := get(ctx, md, prm.Resource, scope)
	if err != nil {
		return nil, a.failed(ctx, issuer, err)
	}
	t := &Token{Token: tok, Issuer: issuer, Resource: prm.Resource, Scope: scope}
	if granted, ok := tok.Extra("scope").(string); ok && granted != "" { // RFC 6749 §5.1
		t.Scope = granted
	}
	if err := a.o.Store.SetToken(ctx, key, t); err != nil {
		return nil, fmt.Errorf("%w: storing the token: %w", ErrAuthorization, err)
	}
	a.o.Logger.InfoContext(ctx, "oauth: authorized", "issuer", issuer, "resource", prm.Resource, "scope", scope, "step_up", stepUp)
	return t, nil
}

// failed logs a failed flow and returns err.
func (a *Authorizer) failed(ctx context.Context, issuer string, err error) error {
	a.o.Logger.WarnContext(ctx, "oauth: authorization failed", "issuer", issuer, "error", err)
	return err
}

// scope returns the scope to ask for: the challenge's, else the
// resource's scopes_supported, else AuthorizerOptions.Scopes; on a step
// up, together with the scope of the token refused (so that what it
// allowed stays allowed); and offline_access if the authorization server
// lists it (for a refresh token), but never alone.
func (a *Authorizer) scope(c challenge, prm *ResourceMetadata, md *ServerMetadata, used *Token, stepUp bool) string {
	var s []string
	switch {
	case c.scope != "":
		s = strings.Fields(c.scope)
	case len(prm.ScopesSupported) > 0:
		s = slices.Clone(prm.ScopesSupported)
	default:
		s = slices.Clone(a.o.Scopes)
	}
	if stepUp && used != nil {
		s = append(strings.Fields(used.Scope), s...)
	}
	if len(s) > 0 && a.o.Grant == AuthorizationCode && slices.Contains(md.ScopesSupported, offlineAccess) {
		s = append(s, offlineAccess)
	}
	var out []string
	for _, x := range s {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return strings.Join(out, " ")
}

// hasScopes reports whether the space-separated scope have holds every
// scope of want.
func hasScopes(have, want string) bool {
	h := strings.Fields(have)
	for _, w := range strings.Fields(want) {
		if !slices.Contains(h, w) {
			return false
		}
	}
	return true
}
