// Package demoserver is the demo server of cmd/demoserver (whose
// documentation says what it serves and how): Run is the whole command,
// and Start runs the same server in the calling process, for a load
// generator or a test that wants it without building the binary.
package demoserver
