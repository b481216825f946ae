package main

import "github.com/mcpwire/mcpwire/internal/demoserver"

// startDemo runs the demo server in this process on loopback TCP (the
// target when none is given), accepting JSON-RPC 1.0 with jsonrpc1, and
// returns its URL and how to stop it.
func startDemo(jsonrpc1 bool) (url string, stop func() error, err error) {
	args := []string{"-listen", "tcp://127.0.0.1:0"}
	if jsonrpc1 {
		args = append(args, "-jsonrpc1")
	}
	s, err := demoserver.Start(args, nil)
	if err != nil {
		return "", nil, err
	}
	return s.URL(), s.Close, nil
}
