package oauth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// offlineAccess is the scope that asks for a refresh token (OpenID
// Connect Core §11), asked for where the server lists it.
const offlineAccess = "offline_access"

// assertionType is client_assertion_type for private_key_jwt (RFC 7523).
const assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// jwtBearerGrant is the JWT bearer grant type (RFC 7523 §2.1).
const jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// authorizationCode runs the authorization code grant with PKCE against
// md's server for resource, asking for scope, and returns the token.
func (a *Authorizer) authorizationCode(ctx context.Context, md *ServerMetadata, resource, scope string) (*oauth2.Token, error) {
	if !slices.Contains(md.CodeChallengeMethodsSupported, "S256") {
		return nil, fmt.Errorf("%w: %s does not support PKCE with S256", ErrAuthorization, md.Issuer)
	}
	if md.AuthorizationEndpoint == "" || md.TokenEndpoint == "" {
		return nil, fmt.Errorf("%w: %s publishes no authorization or token endpoint", ErrAuthorization, md.Issuer)
	}
	reg, err := a.client(ctx, md)
	if err != nil {
		return nil, err
	}
	cfg := a.config(md, reg)
	cfg.RedirectURL = a.o.Redirect.RedirectURL()
	cfg.Scopes = strings.Fields(scope)
	verifier := oauth2.GenerateVerifier()
	state := randomState()
	authURL := cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", resource))
	q, err := a.o.Redirect.Authorize(ctx, authURL)
	if err != nil {
		return nil, fmt.Errorf("%w: the authorization redirect: %w", ErrAuthorization, err)
	}
	if err := checkResponse(q, state, md); err != nil {
		return nil, err
	}
	tok, err := cfg.Exchange(a.httpContext(ctx, md), q.Get("code"), oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", resource))
	if err != nil {
		return nil, tokenError(err)
	}
	return tok, nil
}

// checkResponse checks an authorization response (the redirect's query
// q): no error, the state sent, and the issuer as RFC 9207 §2.4 says (a
// present iss must be md's issuer, compared as strings; an absent one is
// refused when md says it is always sent).
func checkResponse(q url.Values, state string, md *ServerMetadata) error {
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(state)) != 1 {
		return fmt.Errorf("%w: the authorization response's state is not the one sent", ErrAuthorization)
	}
	if iss, ok := q["iss"]; ok {
		if len(iss) != 1 || iss[0] != md.Issuer {
			return fmt.Errorf("%w: the authorization response's iss is not the issuer %q", ErrAuthorization, md.Issuer)
		}
	} else if md.AuthorizationResponseIssParameterSupported {
		return fmt.Errorf("%w: the authorization response lacks the iss %q promised", ErrAuthorization, md.Issuer)
	}
	if e := q.Get("error"); e != "" {
		return fmt.Errorf("%w: the authorization server answered %s", ErrAuthorization, oauthCode(e))
	}
	if q.Get("code") == "" {
		return fmt.Errorf("%w: the authorization response has no code", ErrAuthorization)
	}
	return nil
}

// refresh renews t with its refresh token at md's server, sending the
// resource parameter too (which oauth2.Config's refresh does not).
func (a *Authorizer) refresh(ctx context.Context, md *ServerMetadata, t *Token) (*oauth2.Token, error) {
	reg, err := a.client(ctx, md)
	if err != nil {
		return nil, err
	}
	params := url.Values{
		// clientcredentials.Config lets grant_type be replaced: a
		// refresh request with the same client authentication.
		"grant_type":    {"refresh_token"},
		"refresh_token": {t.RefreshToken},
		"resource":      {t.Resource},
	}
	tok, err := a.tokenRequest(ctx, md, reg, nil, params)
	if err != nil {
		return nil, err
	}
	if tok.RefreshToken == "" { // RFC 6749 §6: the old one stays valid
		tok.RefreshToken = t.RefreshToken
	}
	return tok, nil
}

// clientCredentials runs the client credentials grant at md's server for
// resource, asking for scope.
func (a *Authorizer) clientCredentials(ctx context.Context, md *ServerMetadata, resource, scope string) (*oauth2.Token, error) {
	reg, err := a.machineClient(ctx, md)
	if err != nil {
		return nil, err
	}
	return a.tokenRequest(ctx, md, reg, strings.Fields(scope), url.Values{"resource": {resource}})
}

// jwtBearer runs the JWT bearer grant (RFC 7523 §2.1) at md's server for
// resource, asking for scope, with the assertion AuthorizerOptions.Assertion
// gives.
func (a *Authorizer) jwtBearer(ctx context.Context, md *ServerMetadata, resource, scope string) (*oauth2.Token, error) {
	reg, err := a.machineClient(ctx, md)
	if err != nil {
		return nil, err
	}
	assertion, err := a.o.Assertion(ctx, md.Issuer, resource)
	if err != nil {
		return nil, fmt.Errorf("%w: no assertion: %w", ErrAuthorization, err)
	}
	return a.tokenRequest(ctx, md, reg, strings.Fields(scope),
		url.Values{"grant_type": {jwtBearerGrant}, "assertion": {assertion}, "resource": {resource}})
}

// machineClient returns the client of a grant that needs only md's
// token endpoint.
func (a *Authorizer) machineClient(ctx context.Context, md *ServerMetadata) (*registration, error) {
	if md.TokenEndpoint == "" {
		return nil, fmt.Errorf("%w: %s publishes no token endpoint", ErrAuthorization, md.Issuer)
	}
	return a.client(ctx, md)
}

// tokenRequest posts a client credentials request (or another grant,
// params' grant_type replacing it) to md's token endpoint, authenticated
// as reg says.
func (a *Authorizer) tokenRequest(ctx context.Context, md *ServerMetadata, reg *registration, scopes []string, params url.Values) (*oauth2.Token, error) {
	cfg := a.config(md, reg)
	cc := clientcredentials.Config{
		ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, TokenURL: md.TokenEndpoint,
		Scopes: scopes, EndpointParams: params, AuthStyle: cfg.Endpoint.AuthStyle,
	}
	if reg.method == authJWT {
		assertion, err := a.assertion(reg.id, md.Issuer)
		if err != nil {
			return nil, err
		}
		params.Set("client_assertion_type", assertionType)
		params.Set("client_assertion", assertion)
	}
	tok, err := cc.Token(a.httpContext(ctx, md))
	if err != nil {
		return nil, tokenError(err)
	}
	return tok, nil
}

// config is the oauth2.Config of reg at md's server, its client
// authentication set by reg.method.
func (a *Authorizer) config(md *ServerMetadata, reg *registration) *oauth2.Config {
	cfg := &oauth2.Config{
		ClientID: reg.id,
		Endpoint: oauth2.Endpoint{AuthURL: md.AuthorizationEndpoint, TokenURL: md.TokenEndpoint, AuthStyle: oauth2.AuthStyleInParams},
	}
	switch reg.method {
	case authBasic:
		cfg.ClientSecret = reg.secret
		cfg.Endpoint.AuthStyle = oauth2.AuthStyleInHeader
	case authPost:
		cfg.ClientSecret = reg.secret
	}
	return cfg
}

// assertion signs a private_key_jwt client assertion (RFC 7523 §3) of
// clientID for the authorization server issuer, valid for a minute.
func (a *Authorizer) assertion(clientID, issuer string) (string, error) {
	if a.o.PrivateKey == nil {
		return "", fmt.Errorf("%w: private_key_jwt needs a PrivateKey", ErrAuthorization)
	}
	method := jwt.GetSigningMethod(a.o.SigningAlgorithm)
	if method == nil || method.Alg() == "none" || strings.HasPrefix(method.Alg(), "HS") {
		return "", fmt.Errorf("%w: the signing algorithm %q is not supported", ErrAuthorization, a.o.SigningAlgorithm)
	}
	now := time.Now()
	claims := jwt.RegisteredClaims{
		Issuer: clientID, Subject: clientID, Audience: jwt.ClaimStrings{issuer},
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Minute)),
		ID: randomState(),
	}
	s, err := jwt.NewWithClaims(method, claims).SignedString(a.o.PrivateKey)
	if err != nil {
		return "", fmt.Errorf("%w: signing the client assertion failed", ErrAuthorization)
	}
	return s, nil
}

// httpContext is ctx carrying the HTTP client oauth2 sends token
// requests to md's server with: one adding DPoP proofs if they are used.
func (a *Authorizer) httpContext(ctx context.Context, md *ServerMetadata) context.Context {
	c := a.o.HTTPClient
	if a.usesDPoP(md) {
		base := c.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		dc := *c
		dc.Transport = &dpopTokenTransport{a: a, base: base}
		c = &dc
	}
	return context.WithValue(ctx, oauth2.HTTPClient, c)
}

// tokenError is the error of a failed token request: the server's error
// code, never its text or the request's.
func tokenError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		code := re.ErrorCode
		if code == "" && re.Response != nil {
			code = fmt.Sprintf("HTTP %d", re.Response.StatusCode)
		}
		return fmt.Errorf("%w: the token endpoint answered %s", ErrAuthorization, oauthCode(code))
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: %w", ErrAuthorization, err)
	}
	return fmt.Errorf("%w: the token request failed", ErrAuthorization)
}

// oauthCode returns an OAuth error code fit for an error's text: printable
// ASCII of at most 64 bytes, else "an error".
func oauthCode(s string) string {
	if len(s) == 0 || len(s) > 64 || strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r > 0x7e }) >= 0 {
		return "an error"
	}
	return s
}

// randomState returns 32 random bytes, base64url-encoded: a state, a
// JWT ID.
func randomState() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
