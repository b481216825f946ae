package oauth

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// RedirectHandler is the user-facing half of the authorization code
// flow, which the application implements: a CLI or desktop application
// opens the authorization URL in the user's browser and receives the
// authorization server's redirect back to RedirectURL.
//
// RedirectURL is the redirect URI the client registers and sends with
// every authorization request. Authorize takes the user to authURL and
// returns the query parameters of the redirect that comes back (code,
// state, iss, or error); the Authorizer checks them. It returns ctx's
// error if ctx ends first. An Authorizer calls Authorize for one flow at
// a time.
type RedirectHandler interface {
	RedirectURL() string
	Authorize(ctx context.Context, authURL string) (url.Values, error)
}

// LoopbackRedirect is a RedirectHandler for native applications (RFC
// 8252 §7.3): it listens on a loopback address for the redirect, and
// calls Open to send the user to the authorization URL (typically by
// opening the system browser). It is safe for concurrent use; Close
// stops it.
type LoopbackRedirect struct {
	// Open sends the user to authURL.
	Open func(authURL string) error

	redirect string
	srv      *http.Server
	mu       sync.Mutex
	pending  map[string]chan url.Values // by state
}

// loopbackPath is the path of a LoopbackRedirect's redirect URI.
const loopbackPath = "/callback"

// NewLoopbackRedirect listens on 127.0.0.1, on a port the system picks,
// for redirects to http://127.0.0.1:<port>/callback, and calls open for
// each authorization. A redirect is taken only if its state is that of an
// authorization under way; others are answered 400.
func NewLoopbackRedirect(open func(authURL string) error) (*LoopbackRedirect, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &LoopbackRedirect{
		Open:     open,
		redirect: "http://" + ln.Addr().String() + loopbackPath,
		pending:  map[string]chan url.Values{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+loopbackPath, r.callback)
	r.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go r.srv.Serve(ln) //nolint:errcheck // ends with Close
	return r, nil
}

// RedirectURL returns the loopback redirect URI.
func (r *LoopbackRedirect) RedirectURL() string { return r.redirect }

// Authorize calls Open with authURL and waits for the redirect carrying
// its state, or for ctx to end.
func (r *LoopbackRedirect) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return nil, err
	}
	state := u.Query().Get("state")
	if state == "" {
		return nil, errors.New("oauth: the authorization URL has no state")
	}
	ch := make(chan url.Values, 1)
	r.mu.Lock()
	r.pending[state] = ch
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.pending, state)
		r.mu.Unlock()
	}()
	if err := r.Open(authURL); err != nil {
		return nil, err
	}
	select {
	case q := <-ch:
		return q, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// callback takes a redirect whose state is awaited.
func (r *LoopbackRedirect) callback(w http.ResponseWriter, req *http.Request) {
	q := req.URL.Query()
	r.mu.Lock()
	ch, ok := r.pending[q.Get("state")]
	delete(r.pending, q.Get("state"))
	r.mu.Unlock()
	if !ok {
		http.Error(w, "No authorization is awaiting this response.", http.StatusBadRequest)
		return
	}
	ch <- q
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("Authorization received: you may close this window.\n"))
}

// Close stops listening.
func (r *LoopbackRedirect) Close() error { return r.srv.Close() }
