package main

import "github.com/mcpwire/mcpwire/internal/demoserver"

// startDemo runs the demo server in this process on loopback TCP (the
// target when none is given) and returns its URL and how to stop it.
func startDemo() (url string, stop func() error, err error) {
	s, err := demoserver.Start([]string{"-listen", "tcp://127.0.0.1:0"}, nil)
	if err != nil {
		return "", nil, err
	}
	return s.URL(), s.Close, nil
}
