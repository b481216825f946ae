package streamable

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/httpjson"
	"github.com/mcpwire/mcpwire/mcp"
)

// ConnectSSE connects to the MCP server whose HTTP+SSE endpoint (the
// transport of 2024-11-05, which SSEHandler serves) is at endpoint, and
// runs the handshake, initialize (Client.ConnectStateful: a client of a
// stateless version asks for mcp.LatestVersion). A GET opens the event
// stream, whose first event, "endpoint", gives the URL to POST messages
// to: resolved against
// endpoint (it may be relative, and carries the session, typically in its
// query), it must have endpoint's origin, so that opts.Header
// (credentials, say) goes nowhere else. Each message goes out in a POST
// of its own, one at a time and in order; every message of the server,
// its answers included, comes as a "message" event on the stream. A
// request the server refuses (a status other than 2xx) is answered with
// an error made here; 404 means the server forgot the session, which ends
// with ErrSessionNotFound. The session ends when the stream does; nothing
// is resumed. Of opts it uses HTTPClient, Header and MaxMessageBytes.
//
// Connect falls back on it for servers that refuse Streamable HTTP.
func ConnectSSE(ctx context.Context, c *mcp.Client, endpoint string, opts *ClientOptions) (*mcp.ClientSession, error) {
	mc, err := dialSSE(ctx, endpoint, opts)
	if err != nil {
		return nil, err
	}
	// The transport has no stateless version: the session runs
	// initialize whatever version the client speaks elsewhere.
	return c.ConnectStateful(ctx, conn.NewMessageStream(mc, nil), nil)
}

// sseClient is the client side of HTTP+SSE as a conn.MessageConn: the
// GET's events are read by a goroutine of its own, messages are POSTed by
// WriteMessage.
type sseClient struct {
	client *http.Client
	own    bool // client is ours: its idle connections close with it
	header http.Header
	post   string // the URL of the endpoint event

	ctx    context.Context // ends with Close: the GET and every POST stop
	cancel context.CancelFunc
	inbox            // the stream's messages, and answers made here
	once   sync.Once // Close's
	wg     sync.WaitGroup
	scan   *codec.Scanner // WriteMessage's: the session's writer sends one at a time
}

// Errors of ConnectSSE.
var (
	// ErrNoEndpoint is returned by ConnectSSE when the stream's first
	// event is not an endpoint event, or the stream ends before one.
	ErrNoEndpoint = errors.New("mcp: the SSE stream did not begin with an endpoint event")
	// ErrEndpointOrigin is returned by ConnectSSE when the endpoint event
	// names a URL of another origin than the stream's.
	ErrEndpointOrigin = errors.New("mcp: the SSE endpoint event names another origin")
)

// dialSSE opens the event stream at endpoint and waits, within ctx, for
// its endpoint event.
func dialSSE(ctx context.Context, endpoint string, o *ClientOptions) (*sseClient, error) {
	opts, own := o.withDefaults()
	base, err := url.Parse(endpoint)
	if err != nil {
		return nil, err
	}
	s := &sseClient{
		client: opts.Client,
		own:    own,
		header: opts.Header,
		inbox:  newInbox(),
		scan:   codec.NewScanner(nil),
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	stop := context.AfterFunc(ctx, s.cancel) // ctx bounds the dial and the endpoint event
	resp, r, err := s.open(endpoint, opts.Limits.WithDefaults().MaxFrameBytes)
	var ep *url.URL
	if err == nil {
		ep, err = s.endpoint(base, r)
	}
	if !stop() {
		err = ctx.Err()
	}
	if err != nil {
		s.Close() // first: it ends the stream a read of the body may wait on
		if resp != nil {
			resp.Body.Close()
		}
		return nil, err
	}
	s.post = ep.String()
	s.wg.Go(func() { s.read(resp, r) })
	return s, nil
}

// open GETs the event stream.
func (s *sseClient) open(endpoint string, max int) (*http.Response, *sseReader, error) {
	req, err := http.NewRequestWithContext(s.ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, nil, err
	}
	setHeaders(req, s.header)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		err := responseError(resp)
		drain(resp)
		return nil, nil, err
	}
	if !strings.EqualFold(httpjson.MediaType(resp.Header.Get("Content-Type")), "text/event-stream") {
		resp.Body.Close() // not read: it may never end
		return nil, nil, ErrNoEndpoint
	}
	return resp, newSSEReader(resp.Body, max), nil
}

// endpoint reads the stream's first event, which must be the endpoint
// event, and returns its URL resolved against base.
func (s *sseClient) endpoint(base *url.URL, r *sseReader) (*url.URL, error) {
	ev, err := r.Next()
	switch {
	case errors.Is(err, io.EOF):
		return nil, ErrNoEndpoint
	case err != nil:
		return nil, err
	case ev.Name != "endpoint":
		return nil, ErrNoEndpoint
	}
	u, err := base.Parse(strings.TrimSpace(string(ev.Data)))
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(u.Scheme, base.Scheme) || !strings.EqualFold(u.Host, base.Host) {
		return nil, ErrEndpointOrigin
	}
	return u, nil
}

// read delivers the data of each message event until the stream ends.
// Events of other types (a later endpoint event, say) are skipped.
func (s *sseClient) read(resp *http.Response, r *sseReader) {
	defer resp.Body.Close()
	for {
		ev, err := r.Next()
		if err != nil {
			if s.ctx.Err() != nil || errors.Is(err, io.ErrUnexpectedEOF) {
				err = io.EOF // closed by us, or the server went away
			}
			s.fail(err, nil)
			return
		}
		if ev.Name != "" && ev.Name != "message" || len(bytes.TrimSpace(ev.Data)) == 0 {
			continue
		}
		if !s.deliver(append([]byte(nil), ev.Data...)) {
			return
		}
	}
}

// ReadMessage implements conn.MessageConn: what was delivered before the
// stream ended is read first.
func (s *sseClient) ReadMessage() ([]byte, error) { return s.next() }

// WriteMessage implements conn.MessageConn: msg is POSTed to the endpoint.
// A request the server refuses, or that cannot reach it, is answered with
// an error made here; a notification or response is dropped.
func (s *sseClient) WriteMessage(msg []byte) error {
	if err := s.ended(); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(s.ctx, http.MethodPost, s.post, bytes.NewReader(msg))
	if err != nil {
		return err
	}
	setHeaders(req, s.header)
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err == nil {
		defer drain(resp)
		switch {
		case resp.StatusCode/100 == 2:
			return nil
		case resp.StatusCode == http.StatusNotFound:
			s.fail(ErrSessionNotFound, nil)
			return ErrSessionNotFound
		}
		err = responseError(resp)
	}
	if s.ctx.Err() != nil {
		return ErrClosedTransport
	}
	if msgs, _, serr := s.scan.Scan(msg); serr == nil && len(msgs) == 1 && msgs[0].Kind == codec.KindRequest {
		s.failCall(msgs[0].ID, err)
	}
	return nil
}

// Close implements conn.MessageConn: the stream and every POST stop.
func (s *sseClient) Close() error {
	s.once.Do(func() {
		s.shut()
		s.cancel()
		s.wg.Wait()
		if s.own {
			s.client.CloseIdleConnections()
		}
	})
	return nil
}
