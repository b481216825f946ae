package transport

import (
	"context"
	"net"

	"github.com/mcpwire/mcpwire/conn"
)

// Dial connects to a tcp:// or unix:// address and returns a connection
// using opts (nil: defaults; set opts.Router to serve the peer's calls too).
func Dial(ctx context.Context, addr string, opts *conn.Options) (*conn.Conn, error) {
	network, address, err := ParseAddr(addr)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	return conn.New(nc, opts), nil
}
