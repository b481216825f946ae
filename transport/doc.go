// Package transport carries JSON-RPC connections over stdio, TCP and Unix
// sockets, in either framing (codec.Newline or codec.Header, chosen by
// conn.Options.Framing).
//
// Addresses are written as URLs: "tcp://127.0.0.1:7000", "tcp://[::1]:0",
// "unix:///run/app.sock". A Server accepts on any number of listeners and
// shuts all of its connections down gracefully; Dial opens a client
// connection. Listen removes a stale Unix socket file (nobody accepts on
// it) before binding, and refuses a path where a server accepts with
// ErrAddrInUse.
package transport
