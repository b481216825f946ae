package transport

import (
	"net/http"
	"net/url"
	"strconv"
)

// HTTPStatusError is the error of a call whose HTTP request was answered
// with a status that carries no JSON-RPC answer: a 404 from a wrong URL, a
// proxy's 502. The HTTP client stream (NewHTTPStream, and so package
// client) and MCP's HTTP client (package mcp/streamable) return it as the
// call's error; find it with errors.As. Statuses that map to a JSON-RPC
// code (401, 403, 429, 503: see NewHTTPStream) and bodies that are a
// JSON-RPC error are reported as that error instead.
type HTTPStatusError struct {
	// StatusCode is the response's status code (404).
	StatusCode int
	// Status is the response's status line without the protocol ("404
	// Not Found").
	Status string
	// URL is the request's URL without its user information and query,
	// which may hold credentials.
	URL string
}

// NewHTTPStatusError returns the error of res, an answer with no JSON-RPC
// response in it.
func NewHTTPStatusError(res *http.Response) *HTTPStatusError {
	e := &HTTPStatusError{StatusCode: res.StatusCode, Status: res.Status}
	if e.Status == "" {
		e.Status = strconv.Itoa(res.StatusCode) + " " + http.StatusText(res.StatusCode)
	}
	if res.Request != nil && res.Request.URL != nil {
		e.URL = redactedURL(res.Request.URL)
	}
	return e
}

// Error names the status and the URL; never the response's body.
func (e *HTTPStatusError) Error() string {
	return "transport: HTTP " + e.Status + " from " + e.URL
}

// redactedURL is u without user information, query or fragment.
func redactedURL(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = nil, "", false, "", ""
	return c.String()
}
