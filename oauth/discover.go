package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/codec"
)

// ServerMetadata is the part of an authorization server's metadata (RFC
// 8414 §2, OpenID Connect Discovery 1.0 §3) a resource server or an
// Authorizer uses.
type ServerMetadata struct {
	Issuer                string   `json:"issuer"`
	JWKSURI               string   `json:"jwks_uri,omitempty"`
	IntrospectionEndpoint string   `json:"introspection_endpoint,omitempty"`
	TokenEndpoint         string   `json:"token_endpoint,omitempty"`
	AuthorizationEndpoint string   `json:"authorization_endpoint,omitempty"`
	ScopesSupported       []string `json:"scopes_supported,omitempty"`
	// IntrospectionEndpointAuthMethodsSupported lists how a client may
	// authenticate to the introspection endpoint.
	IntrospectionEndpointAuthMethodsSupported []string `json:"introspection_endpoint_auth_methods_supported,omitempty"`

	// What a client (Authorizer) reads as well.

	// RegistrationEndpoint is where a client registers itself (RFC 7591).
	RegistrationEndpoint string `json:"registration_endpoint,omitempty"`
	// CodeChallengeMethodsSupported lists the PKCE methods (RFC 7636)
	// the server accepts; an Authorizer requires S256 among them.
	CodeChallengeMethodsSupported []string `json:"code_challenge_methods_supported,omitempty"`
	// TokenEndpointAuthMethodsSupported lists how a client may
	// authenticate to the token endpoint (absent: client_secret_basic).
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	// AuthorizationResponseIssParameterSupported says the server puts
	// its issuer in every authorization response (RFC 9207).
	AuthorizationResponseIssParameterSupported bool `json:"authorization_response_iss_parameter_supported,omitempty"`
	// ClientIDMetadataDocumentSupported says the server accepts an
	// https URL as a client_id, naming the client's metadata document.
	ClientIDMetadataDocumentSupported bool `json:"client_id_metadata_document_supported,omitempty"`
	// DPoPSigningAlgValuesSupported lists the algorithms of the DPoP
	// proofs the server accepts (RFC 9449 §5.1).
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported,omitempty"`
}

// maxDocument bounds the documents this package reads from an
// authorization server: metadata, key sets, introspection responses.
const maxDocument = 1 << 20

// ErrDiscovery is what Discover's errors wrap: no metadata document could
// be read for the issuer, or the one read names another issuer.
var ErrDiscovery = errors.New("oauth: authorization server metadata discovery failed")

// Discover fetches the metadata of the authorization server whose issuer
// identifier is issuer (an https URL; http only for loopback testing),
// trying in order the locations the MCP specification lists: RFC 8414's
// /.well-known/oauth-authorization-server, then OpenID Connect's
// /.well-known/openid-configuration inserted before the issuer's path,
// then appended to it. The first document found (200, JSON) is used and
// must name exactly issuer as its issuer (RFC 8414 §3.3), or Discover
// fails: a document claiming another issuer is never used. client nil
// means http.DefaultClient; ctx bounds the whole discovery.
func Discover(ctx context.Context, client *http.Client, issuer string) (*ServerMetadata, error) {
	urls, err := discoveryURLs(issuer)
	if err != nil {
		return nil, err
	}
	if client == nil {
		client = http.DefaultClient
	}
	var last error
	for _, u := range urls {
		var md ServerMetadata
		found, err := getJSON(ctx, client, u, &md)
		if err != nil {
			last = err
			if ctx.Err() != nil {
				break
			}
			continue
		}
		if !found {
			continue
		}
		if md.Issuer != issuer {
			return nil, fmt.Errorf("%w: the metadata at %s names the issuer %q, not %q", ErrDiscovery, u, md.Issuer, issuer)
		}
		return &md, nil
	}
	if last != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrDiscovery, issuer, last)
	}
	return nil, fmt.Errorf("%w: %s publishes no metadata", ErrDiscovery, issuer)
}

// discoverURL returns the URL member (named name) of issuer's metadata
// that pick reads, or an error if there is none.
func discoverURL(ctx context.Context, client *http.Client, issuer, name string, pick func(*ServerMetadata) string) (string, error) {
	md, err := Discover(ctx, client, issuer)
	if err != nil {
		return "", err
	}
	u := pick(md)
	if u == "" {
		return "", fmt.Errorf("%w: %s publishes no %s", ErrDiscovery, issuer, name)
	}
	return u, nil
}

// setDefaults fills the options both verifiers share: the leeway (zero:
// DefaultLeeway; negative: none), the HTTP client, the logger, the clock.
func setDefaults(leeway *time.Duration, client **http.Client, logger **slog.Logger, now *func() time.Time) {
	if *leeway == 0 {
		*leeway = DefaultLeeway
	}
	*leeway = max(*leeway, 0)
	if *client == nil {
		*client = http.DefaultClient
	}
	if *logger == nil {
		*logger = slog.Default()
	}
	if *now == nil {
		*now = time.Now
	}
}

// discoveryURLs returns the metadata locations of issuer, in the order
// Discover tries them.
func discoveryURLs(issuer string) ([]string, error) {
	u, err := url.Parse(issuer)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%w: the issuer must be an http(s) URL with no query or fragment", ErrDiscovery)
	}
	base := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	if path == "" {
		return []string{
			base + "/.well-known/oauth-authorization-server",
			base + "/.well-known/openid-configuration",
		}, nil
	}
	return []string{
		base + "/.well-known/oauth-authorization-server" + path,
		base + "/.well-known/openid-configuration" + path,
		base + path + "/.well-known/openid-configuration",
	}, nil
}

// getJSON GETs u and decodes its JSON body into v. found is false for a
// 404 (or another 4xx): nothing there. Another status, a body that is not
// JSON or is larger than maxDocument, or a transport failure is an error.
func getJSON(ctx context.Context, client *http.Client, u string, v any) (found bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return false, nil
	case resp.StatusCode != http.StatusOK:
		return false, fmt.Errorf("%s answered %d", u, resp.StatusCode)
	}
	return true, decodeBody(resp.Body, v)
}

// decodeBody reads a JSON document of at most maxDocument bytes from r
// into v: validated by codec's scanner first, then decoded, with member
// names matched exactly.
func decodeBody(r io.Reader, v any) error {
	body, err := io.ReadAll(io.LimitReader(r, maxDocument+1))
	if err != nil {
		return err
	}
	if len(body) > maxDocument {
		return errors.New("the document is too large")
	}
	if !codec.NewScanner(nil).Valid(body) {
		return errors.New("the document is not valid JSON")
	}
	return codec.UnmarshalExact(body, v)
}
