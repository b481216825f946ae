package oauth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// Token types of the token exchange IDJAGAssertion makes (RFC 8693 §3,
// the Identity Assertion JWT Authorization Grant draft).
const (
	tokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"
	idTokenType        = "urn:ietf:params:oauth:token-type:id_token"
	idJAGType          = "urn:ietf:params:oauth:token-type:id-jag"
)

// IDJAGAssertion returns an AuthorizerOptions.Assertion for
// enterprise-managed authorization: it exchanges the user's ID token
// (what idToken returns) at the enterprise identity provider's token
// endpoint (RFC 8693 token exchange, as the public client clientID) for
// an Identity Assertion JWT Authorization Grant (ID-JAG) whose audience
// is the authorization server and whose resource is the MCP server's,
// which the JWTBearer grant then presents. client sends the exchange
// (nil: http.DefaultClient). Errors carry the identity provider's OAuth
// error code, never a token.
func IDJAGAssertion(tokenEndpoint, clientID string, idToken func(context.Context) (string, error), client *http.Client) func(ctx context.Context, issuer, resource string) (string, error) {
	if client == nil {
		client = http.DefaultClient
	}
	return func(ctx context.Context, issuer, resource string) (string, error) {
		subject, err := idToken(ctx)
		if err != nil {
			return "", err
		}
		cc := clientcredentials.Config{ClientID: clientID, TokenURL: tokenEndpoint, AuthStyle: oauth2.AuthStyleInParams,
			EndpointParams: url.Values{
				// clientcredentials.Config lets grant_type be replaced.
				"grant_type":           {tokenExchangeGrant},
				"requested_token_type": {idJAGType},
				"audience":             {issuer},
				"resource":             {resource},
				"subject_token":        {subject},
				"subject_token_type":   {idTokenType},
			}}
		tok, err := cc.Token(context.WithValue(ctx, oauth2.HTTPClient, client))
		if err != nil {
			return "", fmt.Errorf("the identity provider's token exchange: %w", tokenError(err))
		}
		return tok.AccessToken, nil
	}
}
