package oauth

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpwire/mcpwire/codec"
)

// WellKnownResourcePath is where RFC 9728 puts a protected resource's
// metadata: at the root of its host for a resource without a path, with
// the resource's path appended otherwise (MetadataPath).
const WellKnownResourcePath = "/.well-known/oauth-protected-resource"

// ResourceMetadata is an OAuth 2.0 protected resource metadata document
// (RFC 9728 §2), the one MCP clients read to find the authorization server
// of a server that answered 401. Only Resource is required.
type ResourceMetadata struct {
	// Resource is the resource's identifier: its absolute https (or, for
	// loopback development, http) URL with no query or fragment, e.g.
	// "https://mcp.example.com/mcp". It is the audience tokens must be
	// issued for (RFC 8707).
	Resource string `json:"resource"`
	// AuthorizationServers are the issuer identifiers of the authorization
	// servers whose tokens the resource accepts.
	AuthorizationServers []string `json:"authorization_servers,omitempty"`
	// ScopesSupported lists the scopes the resource understands.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// BearerMethodsSupported is how a token may be sent: MetadataHandler
	// sets ["header"] when it is empty, the only method this package
	// accepts.
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
	// ResourceName is a human-readable name of the resource.
	ResourceName string `json:"resource_name,omitempty"`
	// ResourceDocumentation is the URL of a page for developers.
	ResourceDocumentation string `json:"resource_documentation,omitempty"`
	// ResourcePolicyURI and ResourceTosURI are the URLs of the
	// resource's policy and terms of service.
	ResourcePolicyURI string `json:"resource_policy_uri,omitempty"`
	ResourceTosURI    string `json:"resource_tos_uri,omitempty"`
}

// errResource is the error of a resource identifier MetadataPath cannot use.
var errResource = errors.New("oauth: a resource identifier must be an absolute http(s) URL with no query or fragment")

// parseResource parses and checks a resource identifier.
func parseResource(resource string) (*url.URL, error) {
	u, err := url.Parse(resource)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" ||
		u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.User != nil {
		return nil, errResource
	}
	return u, nil
}

// MetadataPath returns the path at which RFC 9728 §3.1 puts the metadata of
// resource: WellKnownResourcePath followed by the resource's path, with no
// trailing slash ("https://h/mcp" → "/.well-known/oauth-protected-resource/mcp";
// "https://h/" → "/.well-known/oauth-protected-resource"). Serve
// MetadataHandler there (and, for clients that only try the root, at
// WellKnownResourcePath too).
func MetadataPath(resource string) (string, error) {
	u, err := parseResource(resource)
	if err != nil {
		return "", err
	}
	return WellKnownResourcePath + strings.TrimSuffix(u.EscapedPath(), "/"), nil
}

// MetadataURL returns the absolute URL of resource's metadata document:
// resource's scheme and host with MetadataPath. It is what a 401's
// WWW-Authenticate names (BearerOptions.ResourceMetadataURL).
func MetadataURL(resource string) (string, error) {
	u, err := parseResource(resource)
	if err != nil {
		return "", err
	}
	p, _ := MetadataPath(resource)
	return u.Scheme + "://" + u.Host + p, nil
}

// MetadataHandler returns an http.Handler that serves md as JSON to GET and
// HEAD, at whatever path it is mounted (see MetadataPath), and answers
// other methods 405. The document is public and read by browser-based
// clients too, so it carries "Access-Control-Allow-Origin: *" and answers
// CORS preflights; it is cacheable for an hour. md is copied: later
// changes to it are not served. It returns an error when md.Resource is
// not a valid resource identifier. The handler is safe for concurrent use.
func MetadataHandler(md ResourceMetadata) (http.Handler, error) {
	if _, err := parseResource(md.Resource); err != nil {
		return nil, err
	}
	if len(md.BearerMethodsSupported) == 0 {
		md.BearerMethodsSupported = []string{"header"}
	}
	body, err := codec.AppendValue(nil, &md)
	if err != nil {
		return nil, err
	}
	return metadataHandler(body), nil
}

type metadataHandler []byte

func (b metadataHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "MCP-Protocol-Version")
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		h.Set("Allow", "GET, HEAD, OPTIONS")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Set("Cache-Control", "public, max-age=3600")
	if r.Method == http.MethodGet {
		w.Write(b)
	}
}
