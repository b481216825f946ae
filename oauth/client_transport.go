package oauth

import (
	"io"
	"net/http"
)

// Transport returns an http.RoundTripper that sends each request through
// base (nil: http.DefaultTransport) with "Authorization: Bearer" and the
// Authorizer's token for the request's URL (one it holds: none before the
// first challenge), refreshed first if it expired.
//
// A 401 answer runs the authorization flow and sends the request again
// with the new token, once; a 403 whose challenge is
// error="insufficient_scope" does the same with the scope it names added
// (a step up), as long as AuthorizerOptions.MaxStepUps allows and the
// token refused was not granted that scope already. When the
// flow fails, RoundTrip returns its error (wrapping ErrAuthorization); a
// request whose body cannot be sent again (http.Request.GetBody nil) gets
// the 401 or 403 as it came. It closes base's idle connections when
// asked to (http.Client.CloseIdleConnections).
func (a *Authorizer) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &authTransport{a: a, base: base}
}

// authTransport is the RoundTripper Transport returns.
type authTransport struct {
	a    *Authorizer
	base http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	tok, err := t.a.token(ctx, endpointKey(req.URL))
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	resp, err := t.send(req, tok, false)
	for authorized, nonced := false, false; err == nil; {
		c := parseChallenge(resp.Header)
		if tok != nil && isDPoP(tok) && t.a.nonces.take(origin(req), resp) && c.err == "use_dpop_nonce" && !nonced &&
			(req.Body == nil || req.Body == http.NoBody || req.GetBody != nil) {
			nonced = true // RFC 9449 §9: once more, with the nonce
			discard(resp)
			resp, err = t.send(req, tok, true)
			continue
		}
		stepUp := resp.StatusCode == http.StatusForbidden && c.err == "insufficient_scope"
		switch {
		case resp.StatusCode < 400:
			t.a.stepUps.Store(0)
			return resp, nil
		case resp.StatusCode != http.StatusUnauthorized && !stepUp,
			resp.StatusCode == http.StatusUnauthorized && authorized,
			stepUp && int(t.a.stepUps.Load()) >= t.a.o.MaxStepUps,
			stepUp && tok != nil && hasScopes(tok.Scope, c.scope), // asking again would not help
			req.Body != nil && req.Body != http.NoBody && req.GetBody == nil:
			return resp, nil
		}
		if stepUp {
			t.a.stepUps.Add(1)
		}
		authorized = true
		discard(resp)
		if tok, err = t.a.authorize(ctx, req.URL, tok, c, stepUp); err != nil {
			return nil, err
		}
		resp, err = t.send(req, tok, true)
	}
	return nil, err
}

// send sends req with tok (if any), on a copy of req; again says req was
// sent before, so its body must be got anew.
func (t *authTransport) send(req *http.Request, tok *Token, again bool) (*http.Response, error) {
	r := req.Clone(req.Context())
	if again && req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = body
	}
	switch {
	case tok == nil:
	case isDPoP(tok) && t.a.o.DPoPKey != nil:
		proof, err := t.a.dpopProof(req.Method, req, tok.AccessToken)
		if err != nil {
			return nil, err
		}
		r.Header.Set("Authorization", "DPoP "+tok.AccessToken)
		r.Header.Set("DPoP", proof)
	default:
		r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	}
	return t.base.RoundTrip(r)
}

// CloseIdleConnections closes base's idle connections, if it has any.
func (t *authTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// discard reads what is left of resp's body (a little, so that the
// connection can be reused) and closes it.
func discard(resp *http.Response) {
	_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
	resp.Body.Close()
}
