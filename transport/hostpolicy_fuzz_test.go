package transport_test

import (
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/transport"
)

// FuzzHostPolicy: whatever the Host, Origin, local address and lists, Check
// does not panic, refuses only with -32010, and agrees with a plain
// statement of the rule, written here with the standard library's parsers:
// a disabled policy refuses nothing; a loopback listener never accepts a
// Host that is not loopback and not listed; an Origin that is not listed
// and is no http(s) origin ("null") is always refused; a loopback Host with
// no Origin is always accepted.
func FuzzHostPolicy(f *testing.F) {
	f.Add("localhost:8080", "", "127.0.0.1:8080", "", "", false)
	f.Add("evil.example:8080", "http://evil.example:8080", "127.0.0.1:8080", "", "", false)
	f.Add("[::1]:80", "null", "[::1]:80", "", "", false)
	f.Add("mcp.example.com", "https://app.example.com", "192.168.1.5:80", "mcp.example.com", "https://app.example.com", false)
	f.Add("evil.example", "null", "127.0.0.1:1", "", "", true)
	f.Add("[::ffff:127.0.0.1]:1", "http://[::1]:5173", "[::ffff:127.0.0.1]:1", "*", "", false)
	f.Add("127.0.0.1%eth0", "", "unix:/tmp/x", "", "", false)
	f.Fuzz(func(t *testing.T, host, origin, local, hosts, origins string, disabled bool) {
		p := transport.HostPolicy{AllowedHosts: list(hosts), AllowedOrigins: list(origins), Disabled: disabled}
		addr := localAddr(local)
		err := p.Check(host, origin, addr)
		if err != nil {
			var e *codec.Error
			if !errors.As(err, &e) || e.Code != codec.CodeForbidden {
				t.Fatalf("refusal %v is not -32010", err)
			}
		}
		hostListed := refLoopback(host) || listedHost(p.AllowedHosts, host)
		originListed := origin == "" || listedOrigin(p.AllowedOrigins, origin)
		onLoopback := refLoopbackAddr(addr)
		switch {
		case disabled:
			if err != nil {
				t.Fatalf("disabled policy refused host %q origin %q: %v", host, origin, err)
			}
		case onLoopback && !hostListed:
			if err == nil {
				t.Fatalf("loopback listener accepted host %q", host)
			}
		case !originListed && !strings.HasPrefix(strings.ToLower(origin), "http://") && !strings.HasPrefix(strings.ToLower(origin), "https://"):
			if err == nil {
				t.Fatalf("accepted origin %q", origin)
			}
		case refLoopback(host) && origin == "":
			if err != nil {
				t.Fatalf("refused loopback host %q: %v", host, err)
			}
		}
	})
}

func list(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// localAddr gives an address as the servers do (*net.TCPAddr), nil for "",
// or an address of another kind.
func localAddr(s string) net.Addr {
	if s == "" {
		return nil
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return net.TCPAddrFromAddrPort(ap)
	}
	return &net.UnixAddr{Name: s, Net: "unix"}
}

func refLoopbackAddr(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// refLoopback: localhost or a loopback address, with or without a port.
func refLoopback(host string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		name = host[1 : len(host)-1]
	}
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(name)
	return err == nil && ip.Unmap().IsLoopback()
}

func listedHost(allowed []string, host string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	for _, a := range allowed {
		if a == "*" || strings.EqualFold(a, host) || strings.EqualFold(a, name) {
			return true
		}
	}
	return false
}

func listedOrigin(allowed []string, origin string) bool {
	for _, a := range allowed {
		if a == "*" || strings.EqualFold(a, origin) {
			return true
		}
	}
	return false
}
