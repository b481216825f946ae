package main

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"

	"github.com/golang-jwt/jwt/v5"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/oauth"
)

// The authorization scenarios (auth/…): the suite's server answers 401
// until the client brings a token from the suite's authorization server,
// whose authorization endpoint redirects at once (no user to ask).

// clientMetadataURL is the client ID metadata document URL the suite's
// own clients use: the suite's authorization server does not fetch it.
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

// authContext is MCP_CONFORMANCE_CONTEXT in the scenarios that give the
// client credentials of its own.
type authContext struct {
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	// auth/wif-jwt-bearer: the workload's JWT.
	ValidJWT string `json:"valid_jwt"`
	// auth/enterprise-managed-authorization: the enterprise identity
	// provider, and the user's ID token from it.
	IDPClientID      string `json:"idp_client_id"`
	IDPIDToken       string `json:"idp_id_token"`
	IDPTokenEndpoint string `json:"idp_token_endpoint"`
}

// readAuthContext parses MCP_CONFORMANCE_CONTEXT (absent: the zero
// context).
func readAuthContext() (authContext, error) {
	var c authContext
	raw := os.Getenv("MCP_CONFORMANCE_CONTEXT")
	if raw == "" {
		return c, nil
	}
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		return c, errors.New("MCP_CONFORMANCE_CONTEXT is not the JSON expected")
	}
	return c, nil
}

// userAuthorizer is the authorizer of the authorization code scenarios: a
// client that identifies itself by its metadata document where the
// server supports it, else registers dynamically, unless the context
// gives it a pre-registered client, and binds its tokens to a key of its
// own (DPoP) where the server supports that.
func userAuthorizer() (*oauth.Authorizer, error) {
	c, err := readAuthContext()
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return oauth.NewAuthorizer(&oauth.AuthorizerOptions{
		Redirect: headlessRedirect{},
		DPoPKey:  key, // where the server supports DPoP

		ClientID:          c.ClientID,
		ClientSecret:      c.ClientSecret,
		ClientMetadataURL: clientMetadataURL,
		ClientName:        "mcpwire-conformance-client",
	})
}

// machineAuthorizer is the authorizer of the client credentials
// scenarios: with the context's secret, or its private key
// (private_key_jwt).
func machineAuthorizer() (*oauth.Authorizer, error) {
	c, err := readAuthContext()
	if err != nil {
		return nil, err
	}
	o := &oauth.AuthorizerOptions{Grant: oauth.ClientCredentials, ClientID: c.ClientID, ClientSecret: c.ClientSecret}
	if c.PrivateKeyPEM != "" {
		key, err := parsePrivateKey(c.PrivateKeyPEM)
		if err != nil {
			return nil, err
		}
		o.PrivateKey, o.SigningAlgorithm = key, c.SigningAlgorithm
	}
	return oauth.NewAuthorizer(o)
}

// workloadAuthorizer is the authorizer of auth/wif-jwt-bearer: the JWT
// bearer grant with the workload's JWT, as a public client.
func workloadAuthorizer() (*oauth.Authorizer, error) {
	c, err := readAuthContext()
	if err != nil {
		return nil, err
	}
	return oauth.NewAuthorizer(&oauth.AuthorizerOptions{Grant: oauth.JWTBearer, ClientID: c.ClientID,
		Assertion: func(context.Context, string, string) (string, error) { return c.ValidJWT, nil }})
}

// enterpriseAuthorizer is the authorizer of
// auth/enterprise-managed-authorization: the JWT bearer grant with an
// ID-JAG the enterprise identity provider gives for the user's ID token.
func enterpriseAuthorizer() (*oauth.Authorizer, error) {
	c, err := readAuthContext()
	if err != nil {
		return nil, err
	}
	idToken := func(context.Context) (string, error) { return c.IDPIDToken, nil }
	return oauth.NewAuthorizer(&oauth.AuthorizerOptions{Grant: oauth.JWTBearer, ClientID: c.ClientID, ClientSecret: c.ClientSecret,
		Assertion: oauth.IDJAGAssertion(c.IDPTokenEndpoint, c.IDPClientID, idToken, nil)})
}

// parsePrivateKey parses a PEM private key, EC or RSA.
func parsePrivateKey(pem string) (crypto.Signer, error) {
	if k, err := jwt.ParseECPrivateKeyFromPEM([]byte(pem)); err == nil {
		return k, nil
	}
	if k, err := jwt.ParseRSAPrivateKeyFromPEM([]byte(pem)); err == nil {
		return k, nil
	}
	return nil, errors.New("the context's private_key_pem is neither an EC nor an RSA private key")
}

// headlessRedirect is a user who approves at once: the authorization URL
// is fetched without following its redirect, whose Location is the
// response.
type headlessRedirect struct{}

// RedirectURL is the redirect URI the suite's clients register.
func (headlessRedirect) RedirectURL() string { return "http://localhost:3000/callback" }

// Authorize GETs authURL and returns the query of the redirect it
// answers with.
func (headlessRedirect) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || loc.String() == "" {
		return nil, fmt.Errorf("the authorization endpoint answered %d without a redirect", resp.StatusCode)
	}
	return loc.Query(), nil
}

// callTestTool (auth/…): tools/list, then a call of test-tool, the
// scenarios' one tool.
func callTestTool(ctx context.Context, s *mcp.ClientSession) error {
	if _, err := s.ListTools(ctx, nil); err != nil {
		return err
	}
	return callOK(s.CallTool(ctx, "test-tool", map[string]any{}))
}

// listTools (the machine clients' auth/… scenarios): tools/list.
func listTools(ctx context.Context, s *mcp.ClientSession) error {
	_, err := s.ListTools(ctx, nil)
	return err
}

// withAuthScenarios adds the auth/… scenarios to m and returns it.
func withAuthScenarios(m map[string]scenario) map[string]scenario {
	for _, name := range []string{
		"basic-cimd", "basic-dcr", "metadata-default", "metadata-var1", "metadata-var2", "metadata-var3",
		"2025-03-26-oauth-metadata-backcompat", "2025-03-26-oauth-endpoint-fallback",
		"scope-from-www-authenticate", "scope-from-scopes-supported", "scope-omitted-when-undefined",
		"scope-step-up", "scope-retry-limit",
		"token-endpoint-auth-basic", "token-endpoint-auth-post", "token-endpoint-auth-none",
		"pre-registration", "resource-mismatch", "offline-access-scope", "offline-access-not-supported",
		"authorization-server-migration",
		"iss-supported", "iss-not-advertised", "iss-supported-missing", "iss-wrong-issuer",
		"iss-unexpected", "iss-normalized", "metadata-issuer-mismatch",
		"dpop", "dpop-nonce",
	} {
		m["auth/"+name] = scenario{auth: userAuthorizer, run: callTestTool}
	}
	for _, name := range []string{"client-credentials-basic", "client-credentials-jwt"} {
		m["auth/"+name] = scenario{auth: machineAuthorizer, run: listTools}
	}
	m["auth/wif-jwt-bearer"] = scenario{auth: workloadAuthorizer, run: listTools}
	m["auth/enterprise-managed-authorization"] = scenario{auth: enterpriseAuthorizer, run: listTools}
	return m
}
