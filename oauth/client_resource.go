package oauth

import (
	"context"
	"fmt"
	"net/url"
	"strings"
)

// resourceMetadata reads the protected resource metadata of the MCP
// server at endpoint: at the challenge's resource_metadata URL if it
// names one, else at RFC 9728's well-known URL with endpoint's path
// appended, then at the root one. The document's resource must be
// endpoint or a prefix of it (same origin, a path prefix at a segment
// boundary), and it must name an authorization server.
func (a *Authorizer) resourceMetadata(ctx context.Context, endpoint *url.URL, c challenge) (*ResourceMetadata, error) {
	origin := endpoint.Scheme + "://" + endpoint.Host
	urls := []string{c.resourceMetadata}
	if c.resourceMetadata == "" {
		urls = urls[:0]
		if p := strings.TrimSuffix(endpoint.EscapedPath(), "/"); p != "" {
			urls = append(urls, origin+WellKnownResourcePath+p)
		}
		urls = append(urls, origin+WellKnownResourcePath)
	}
	for _, u := range urls {
		var md ResourceMetadata
		found, err := getJSON(ctx, a.o.HTTPClient, u, &md)
		if err != nil {
			return nil, fmt.Errorf("%w: protected resource metadata: %w", ErrAuthorization, err)
		}
		if !found {
			continue
		}
		if !resourceCovers(md.Resource, endpoint) {
			return nil, fmt.Errorf("%w: the protected resource metadata is for %q, not %s", ErrAuthorization, md.Resource, endpointKey(endpoint))
		}
		if len(md.AuthorizationServers) == 0 {
			return nil, fmt.Errorf("%w: the protected resource metadata names no authorization server", ErrAuthorization)
		}
		return &md, nil
	}
	return nil, fmt.Errorf("%w: %s publishes no protected resource metadata", ErrAuthorization, origin)
}

// resourceCovers reports whether the resource identifier resource
// designates endpoint: the same scheme and host, and a path that is
// endpoint's or one of its ancestors.
func resourceCovers(resource string, endpoint *url.URL) bool {
	r, err := parseResource(resource)
	if err != nil || !strings.EqualFold(r.Scheme, endpoint.Scheme) || !strings.EqualFold(r.Host, endpoint.Host) {
		return false
	}
	rp := strings.TrimSuffix(r.EscapedPath(), "/")
	ep := strings.TrimSuffix(endpoint.EscapedPath(), "/")
	return rp == "" || ep == rp || strings.HasPrefix(ep, rp+"/")
}

// endpointKey is the key of endpoint's token in the TokenStore: its
// scheme, host and path.
func endpointKey(endpoint *url.URL) string {
	return endpoint.Scheme + "://" + endpoint.Host + endpoint.EscapedPath()
}
