package transport

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"

	"github.com/coder/websocket"

	"github.com/mcpwire/mcpwire/conn"
)

// DialWebSocket opens a WebSocket connection to url (ws:// or wss://) and
// returns it as a message stream for a client session
// (conn.NewStream(s, opts)): one JSON-RPC message or batch per WebSocket
// message, with ping/pong keep-alive (opts.PingInterval). opts.Header is
// sent with the upgrade request. A refused upgrade's error names the HTTP
// status. ctx bounds the dial only.
func DialWebSocket(ctx context.Context, url string, opts *WebSocketOptions) (conn.Stream, error) {
	o := opts.withDefaults()
	var d dialRecorder
	hc := o.HTTPClient
	if hc == nil {
		tr := &http.Transport{Proxy: http.ProxyFromEnvironment, DialContext: d.dial}
		defer tr.CloseIdleConnections() // one a redirect left behind
		hc = &http.Client{Transport: tr}
	}
	ws, res, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPClient: hc, HTTPHeader: o.Header})
	if err != nil {
		if res != nil {
			return nil, fmt.Errorf("transport: websocket %s: HTTP %s: %w", url, res.Status, err)
		}
		return nil, fmt.Errorf("transport: websocket %s: %w", url, err)
	}
	lim := o.Limits.WithDefaults()
	mc := newWSConn(ws, d.conn(), lim.MaxFrameBytes, o.PingInterval, o.PingTimeout)
	return conn.NewMessageStream(mc, &lim), nil
}

// dialRecorder dials TCP and remembers the last connection made: the one
// a WebSocket upgrade took over (a Transport of its own dials once per
// DialWebSocket, or twice after a redirect).
type dialRecorder struct {
	d  net.Dialer
	mu sync.Mutex
	nc net.Conn
}

func (r *dialRecorder) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	nc, err := r.d.DialContext(ctx, network, addr)
	if err == nil {
		r.mu.Lock()
		r.nc = nc
		r.mu.Unlock()
	}
	return nc, err
}

func (r *dialRecorder) conn() net.Conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.nc
}
