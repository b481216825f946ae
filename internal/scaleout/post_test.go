package scaleout

import (
	"context"
	"io"
	"net/http"
	"strings"
)

// reply is what a POST got: its status and headers (the body read and
// closed), its body, and the instance the proxy sent it to (none when it
// went to an instance directly).
type reply struct {
	*http.Response
	body    []byte
	backend string
}

// postMCP posts body to url as an MCP client does (JSON, accepting JSON
// or an event stream), with headers (pairs of name and value), within
// ctx, and reads the whole answer.
func postMCP(ctx context.Context, hc *http.Client, url, body string, headers ...string) (*reply, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return &reply{Response: resp, body: raw, backend: resp.Header.Get(backendHeader)}, err
}
