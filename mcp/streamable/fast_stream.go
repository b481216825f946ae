package streamable

import (
	"bufio"
	"context"
	"net"
	"sync/atomic"
	"time"
)

// An event stream served by ServeFastHTTP is written by fasthttp's
// stream writer (fasthttp.Response.SetBodyStreamWriter): once the
// handler has returned and fasthttp has written the header, a goroutine
// of fasthttp's runs the stream's writer, whose output fasthttp sends
// chunk by chunk, each flush of it at once. While it runs, fasthttp reads
// nothing from the connection; a goroutine of the stream's own
// (watchClient) does, to learn when the client goes away, which ends the
// stream's context as net/http's request context ends.

// stream makes the response an event stream whose events run writes
// once the handler has returned (see Handler.stream); ctx is the
// request's.
func (w *fastWriter) stream(ctx context.Context, opts *Options, run func(context.Context, *sseResponse)) {
	w.streamed = true
	c := w.rc.Conn()
	w.rc.Response.SetBodyStreamWriter(func(bw *bufio.Writer) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		if opts.WriteTimeout <= 0 { // no bound: not even the server's, set for the whole response
			_ = c.SetWriteDeadline(time.Time{})
		}
		stop := watchClient(c, cancel)
		defer stop()
		run(ctx, &sseResponse{opts: opts, out: fastSSE{bw, c}})
	})
}

// fastSSE is fasthttp's stream writer as an sseOut: bw's output goes to
// the client's connection c.
type fastSSE struct {
	*bufio.Writer
	c net.Conn
}

// SetWriteDeadline bounds the connection's writes.
func (f fastSSE) SetWriteDeadline(t time.Time) error { return f.c.SetWriteDeadline(t) }

// aLongTimeAgo is a deadline that has passed: a read waiting on the
// connection returns at once.
var aLongTimeAgo = time.Unix(1, 0)

// watchClient reads c while an event stream is written to it, and calls
// gone when the client closes it or the read fails. The client sends
// nothing while it reads a response; if it does (a request pipelined
// behind the stream), c is closed, since what was read of it is lost to
// fasthttp. stop ends the watch and returns once it has ended, c's read
// deadline lifted.
func watchClient(c net.Conn, gone context.CancelFunc) (stop func()) {
	_ = c.SetReadDeadline(time.Time{}) // the request's, which has been read
	var stopping atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		var b [1]byte
		n, _ := c.Read(b[:])
		if n == 0 && stopping.Load() {
			return
		}
		gone()
		if n > 0 {
			c.Close()
		}
	}()
	return func() {
		stopping.Store(true)
		_ = c.SetReadDeadline(aLongTimeAgo)
		<-done
		_ = c.SetReadDeadline(time.Time{})
	}
}
