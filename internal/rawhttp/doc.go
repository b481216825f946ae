// Package rawhttp is test support for HTTP servers: it writes a request
// byte for byte on a loopback TCP connection of its own, reads what the
// server answers, and tells whether the server then closes the
// connection. Tests use it for what net/http's client will not send:
// stalled headers and bodies, bad chunk sizes, Content-Length beside
// Transfer-Encoding, a request hidden after another.
//
// Every read and write of a [Conn] is bounded by the deadline [Send] sets
// (or [Conn.WaitClose] and [Conn.Drain] set), so a server that hangs fails
// the test instead of stalling it.
package rawhttp
