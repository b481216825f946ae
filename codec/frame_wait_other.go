//go:build !linux

package codec

import "io"

// socketWaiter returns nil: waiting on a socket without a buffer is done
// on Linux only.
func socketWaiter(io.Reader) ReadWaiter { return nil }
