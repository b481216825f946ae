package oauth

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/mcpwire/mcpwire/codec"
)

// registration is how a client identifies itself to one authorization
// server.
type registration struct {
	id, secret string
	method     string // token endpoint authentication method
}

// Token endpoint authentication methods.
const (
	authBasic = "client_secret_basic"
	authPost  = "client_secret_post"
	authNone  = "none"
	authJWT   = "private_key_jwt"
)

// client returns the registration to use with the authorization server
// md: the pre-registered client (if registered with md's issuer, or with
// any: ClientIssuer), else a client ID metadata document, else a dynamic
// registration (RFC 7591), made once per issuer.
func (a *Authorizer) client(ctx context.Context, md *ServerMetadata) (*registration, error) {
	if a.o.ClientID != "" && (a.o.ClientIssuer == "" || a.o.ClientIssuer == md.Issuer) {
		m := a.o.TokenEndpointAuthMethod
		if m == "" {
			m = a.defaultMethod(md)
		}
		return &registration{id: a.o.ClientID, secret: a.o.ClientSecret, method: m}, nil
	}
	if a.o.ClientMetadataURL != "" && md.ClientIDMetadataDocumentSupported {
		return &registration{id: a.o.ClientMetadataURL, method: authNone}, nil
	}
	a.mu.Lock()
	r := a.clients[md.Issuer]
	a.mu.Unlock()
	if r != nil {
		return r, nil
	}
	if md.RegistrationEndpoint == "" {
		return nil, fmt.Errorf("%w: %s supports neither client ID metadata documents nor dynamic registration, and no client ID is configured", ErrAuthorization, md.Issuer)
	}
	r, err := a.register(ctx, md)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.clients[md.Issuer] = r
	a.mu.Unlock()
	return r, nil
}

// defaultMethod is the token endpoint authentication method of a
// pre-registered client with md's server.
func (a *Authorizer) defaultMethod(md *ServerMetadata) string {
	supported := md.TokenEndpointAuthMethodsSupported
	switch {
	case a.o.PrivateKey != nil:
		return authJWT
	case a.o.ClientSecret == "":
		return authNone
	case len(supported) == 0 || slices.Contains(supported, authBasic):
		return authBasic // RFC 8414 §2's default
	case slices.Contains(supported, authPost):
		return authPost
	}
	return authBasic
}

// registrationRequest is a dynamic client registration request (RFC 7591
// §2, OpenID Connect Registration's application_type).
type registrationRequest struct {
	ClientName              string   `json:"client_name,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	ApplicationType         string   `json:"application_type,omitempty"`
}

// registrationResponse is the part of a registration's answer a client
// uses.
type registrationResponse struct {
	ClientID                string `json:"client_id"`
	ClientSecret            string `json:"client_secret,omitempty"`
	TokenEndpointAuthMethod string `json:"token_endpoint_auth_method,omitempty"`
}

// register registers the client with md's server: a public client
// (method none) where the server supports that, else one with a secret.
func (a *Authorizer) register(ctx context.Context, md *ServerMetadata) (*registration, error) {
	method := authBasic
	switch s := md.TokenEndpointAuthMethodsSupported; {
	case slices.Contains(s, authNone):
		method = authNone
	case len(s) > 0 && !slices.Contains(s, authBasic) && slices.Contains(s, authPost):
		method = authPost
	}
	body, err := codec.AppendValue(nil, registrationRequest{
		ClientName:              a.o.ClientName,
		RedirectURIs:            []string{a.o.Redirect.RedirectURL()},
		GrantTypes:              []string{"authorization_code", "refresh_token"},
		ResponseTypes:           []string{"code"},
		TokenEndpointAuthMethod: method,
		ApplicationType:         a.o.ApplicationType,
	})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, md.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: the registration endpoint: %w", ErrAuthorization, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := a.o.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: dynamic client registration: %w", ErrAuthorization, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: dynamic client registration answered %d", ErrAuthorization, resp.StatusCode)
	}
	var rr registrationResponse
	if err := decodeBody(resp.Body, &rr); err != nil || rr.ClientID == "" {
		return nil, fmt.Errorf("%w: dynamic client registration gave no client_id", ErrAuthorization)
	}
	r := &registration{id: rr.ClientID, secret: rr.ClientSecret, method: rr.TokenEndpointAuthMethod}
	if r.method == "" {
		r.method = method
	}
	if r.secret == "" && r.method != authJWT {
		r.method = authNone
	}
	return r, nil
}
