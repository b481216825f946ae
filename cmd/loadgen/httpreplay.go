package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/transport"
)

// replay is an httpStream's rare path: the engine's own client stream
// (transport.NewHTTPStream, or streamable.NewClientStream with MCP),
// whose POSTs are answered, through replay's RoundTrip, with the answers
// the fast path read and did not serve. That client maps each to what
// its requests get (an error status to error answers or call errors, an
// event stream that broke to a GET that resumes it) as it does for any
// answer it fetches; pump queues what it gives for the httpStream's
// ReadMessage. Safe for concurrent use.
type replay struct {
	s      *httpStream
	header http.Header
	real   *http.Transport // for what replay does not answer itself (GET)

	slow           conn.Stream
	slowNegotiated func(string)
	wmu            sync.Mutex // held for a slow.Write

	mu     sync.Mutex
	canned map[string][]*http.Response // by the message POSTed

	pumping sync.Once
	wg      sync.WaitGroup
}

// newReplay makes the rare path of s; header is -H, posts bounds the
// engine's client's POSTs in flight.
func newReplay(s *httpStream, header http.Header, posts int) *replay {
	r := &replay{s: s, header: header, canned: map[string][]*http.Response{}}
	r.real = http.DefaultTransport.(*http.Transport).Clone()
	o := transport.HTTPClientOptions{Client: &http.Client{Transport: r}, Header: header, MaxConcurrent: posts}
	if s.mcp {
		r.slow, r.slowNegotiated = streamable.NewClientStream(s.url, &streamable.ClientOptions{HTTPClientOptions: o})
	} else {
		r.slow = transport.NewHTTPStream(s.url, &o)
	}
	return r
}

// negotiated tells the engine's client the MCP version agreed on.
func (r *replay) negotiated(version string) {
	if r.slowNegotiated != nil {
		r.slowNegotiated(version)
	}
}

// serve hands the engine's client the answer (its head and body, the
// latter now replay's) to the message sent.
func (r *replay) serve(head []byte, body *codec.Buffer, sent []byte) {
	res, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(head)), nil)
	if err != nil {
		r.s.bodies.Put(body)
		r.s.fail(errBadHead)
		return
	}
	b := append([]byte(nil), body.B...)
	r.s.bodies.Put(body)
	res.Body, res.ContentLength, res.TransferEncoding = io.NopCloser(bytes.NewReader(b)), int64(len(b)), nil
	if id := r.s.session.Load(); id != nil && res.Header.Get("Mcp-Session-Id") == "" {
		res.Header.Set("Mcp-Session-Id", *id) // so that the engine's client knows the session
	}
	r.mu.Lock()
	r.canned[string(sent)] = append(r.canned[string(sent)], res)
	r.mu.Unlock()
	r.pumping.Do(func() { r.wg.Go(r.pump) })
	r.wmu.Lock() // the lanes' goroutines serve answers concurrently
	err = r.slow.Write(r.slow.AppendFrame(nil, sent))
	r.wmu.Unlock()
	if err != nil && r.s.ctx.Err() == nil {
		r.s.fail(err)
	}
}

// pump queues what the engine's client gives for ReadMessage, until it
// ends.
func (r *replay) pump() {
	for {
		msg, err := r.slow.Next()
		var ce *conn.CallError
		switch {
		case errors.As(err, &ce):
			r.s.deliver(answer{err: ce})
		case err != nil:
			if r.s.ctx.Err() == nil {
				r.s.fail(err)
			}
			return
		default:
			b := r.s.bodies.Get()
			b.B = append(b.B[:0], msg...)
			r.s.deliver(answer{b: b})
		}
	}
}

// errNothingToReplay fails a POST of the engine's client that the fast
// path did not hand it: none is made.
var errNothingToReplay = errors.New("loadgen: no answer to replay for this POST")

// RoundTrip implements http.RoundTripper for the engine's client: a POST
// gets the answer the fast path read for it; a DELETE (the end of the
// session) is answered here, the fast path's stream sending its own
// (endSession); anything else (a GET resuming an event stream) goes out.
func (r *replay) RoundTrip(req *http.Request) (*http.Response, error) {
	switch req.Method {
	case http.MethodPost:
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		r.mu.Lock()
		q := r.canned[string(body)]
		var res *http.Response
		if len(q) > 0 {
			res = q[0]
			if len(q) == 1 {
				delete(r.canned, string(body))
			} else {
				r.canned[string(body)] = q[1:]
			}
		}
		r.mu.Unlock()
		if res == nil {
			return nil, errNothingToReplay
		}
		res.Request = req
		return res, nil
	case http.MethodDelete:
		return &http.Response{Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{}, Body: http.NoBody, Request: req}, nil
	}
	return r.real.RoundTrip(req)
}

// endSessionTimeout bounds the DELETE that ends an MCP session.
const endSessionTimeout = 5 * time.Second

// endSession ends the MCP session id at the server (DELETE), as the
// engine's client does when it closes.
func (r *replay) endSession(id, version string) {
	ctx, cancel := context.WithTimeout(context.Background(), endSessionTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, r.s.url, nil)
	if err != nil {
		return
	}
	for k, v := range r.header {
		req.Header[http.CanonicalHeaderKey(k)] = v
	}
	req.Header.Set("Mcp-Session-Id", id)
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	if res, err := r.real.RoundTrip(req); err == nil {
		io.CopyN(io.Discard, res.Body, 4<<10)
		res.Body.Close()
	}
}

// close ends the engine's client and its connections.
func (r *replay) close() {
	r.slow.Close()
	r.wg.Wait()
	r.real.CloseIdleConnections()
}
