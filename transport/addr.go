package transport

import (
	"context"
	"errors"
	"net"
	"strings"
)

// ErrBadAddress is returned for an address that is not tcp://HOST:PORT or
// unix://PATH.
var ErrBadAddress = errors.New("transport: address must be tcp://HOST:PORT or unix://PATH")

// ParseAddr splits "tcp://HOST:PORT" or "unix://PATH" into a network and an
// address for the net package.
func ParseAddr(addr string) (network, address string, err error) {
	scheme, rest, ok := strings.Cut(addr, "://")
	if !ok || rest == "" {
		return "", "", ErrBadAddress
	}
	switch scheme {
	case "tcp", "tcp4", "tcp6", "unix":
		return scheme, rest, nil
	}
	return "", "", ErrBadAddress
}

// Listen listens on a tcp:// or unix:// address. A Unix socket file left
// behind by a server that did not close its listener (killed with
// SIGKILL) is removed first, once a dial finds nobody accepting on it; a
// path where a server accepts is ErrAddrInUse, and a path that is not a
// socket is never removed. Closing the listener removes its socket file.
func Listen(ctx context.Context, addr string) (net.Listener, error) {
	network, address, err := ParseAddr(addr)
	if err != nil {
		return nil, err
	}
	if network == "unix" {
		if err := removeStaleSocket(ctx, address); err != nil {
			return nil, err
		}
	}
	var lc net.ListenConfig
	return lc.Listen(ctx, network, address)
}

// URL returns the address of ln in the form Listen and Dial accept.
func URL(ln net.Listener) string {
	a := ln.Addr()
	return a.Network() + "://" + a.String()
}
