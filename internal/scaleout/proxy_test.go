package scaleout

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"sync"
	"testing"
)

// backendHeader names, on every answer of the proxy, the backend it sent
// the request to.
const backendHeader = "X-Scaleout-Backend"

// backend is one instance behind the proxy.
type backend struct {
	name string
	url  *url.URL // http://127.0.0.1:PORT
}

// proxy is a round-robin reverse proxy, as a load balancer without
// sticky sessions is: each request goes to the next backend of the
// rotation, whatever it carries (Mcp-Session-Id, Last-Event-ID). Event
// streams pass through as they are written (FlushInterval -1). A backend
// that does not answer (killed) makes the proxy answer 502 and stays in
// the rotation, the next request going to the next backend, until remove
// takes it out. Safe for concurrent use.
type proxy struct {
	srv *httptest.Server
	tr  *http.Transport

	mu       sync.Mutex
	rotation []backend
	next     int
}

type backendKey struct{}

// startProxy serves the proxy on a loopback port until the test ends.
func startProxy(t testing.TB, backends ...backend) *proxy {
	t.Helper()
	p := &proxy{tr: &http.Transport{}, rotation: slices.Clone(backends)}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			b := p.pick()
			pr.SetURL(b.url)
			pr.Out = pr.Out.WithContext(context.WithValue(pr.Out.Context(), backendKey{}, b.name))
		},
		FlushInterval: -1,
		Transport:     p.tr,
		ModifyResponse: func(r *http.Response) error {
			r.Header.Set(backendHeader, backendOf(r.Request))
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			w.Header().Set(backendHeader, backendOf(r))
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	p.srv = httptest.NewServer(rp)
	t.Cleanup(func() {
		p.srv.CloseClientConnections()
		p.srv.Close()
		p.tr.CloseIdleConnections()
	})
	return p
}

// backendOf returns the name of the backend r was sent to ("" if none).
func backendOf(r *http.Request) string {
	name, _ := r.Context().Value(backendKey{}).(string)
	return name
}

// URL is the proxy's base URL: http://127.0.0.1:PORT.
func (p *proxy) URL() string { return p.srv.URL }

// pick returns the next backend of the rotation.
func (p *proxy) pick() backend {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.rotation[p.next%len(p.rotation)]
	p.next++
	return b
}

// remove takes the backend name out of the rotation (as a load
// balancer's health check would, once it has failed).
func (p *proxy) remove(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rotation = slices.DeleteFunc(p.rotation, func(b backend) bool { return b.name == name })
}
