package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A wrong URL over HTTP: every request is answered 404, which the report
// counts as a transport error of each request (none lost, none an error
// answer), and the error's text names the status.
func TestLoad_wrongHTTPURLIsATransportError(t *testing.T) {
	hs := httptest.NewServer(http.NotFoundHandler())
	defer hs.Close()
	r, _, out := load(t, "-n", "20", "-c", "2", hs.URL+"/wrong")
	if r.TransportErrors != 20 || r.Errors != 20 || r.Lost != 0 || r.Responses != 0 || len(r.ErrorCodes) != 0 {
		t.Fatalf("transport errors %d, errors %d, lost %d, responses %d, codes %v: want 20, 20, 0, 0, none\n%s",
			r.TransportErrors, r.Errors, r.Lost, r.Responses, r.ErrorCodes, out)
	}
	if !strings.Contains(out, "404 Not Found") {
		t.Errorf("the output does not name the status:\n%s", out)
	}
}
