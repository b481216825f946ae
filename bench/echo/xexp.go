package echo

import (
	"context"
	"encoding/json"
	"io"
	"sync"

	"golang.org/x/exp/jsonrpc2"
)

// xexpServer runs one jsonrpc2.Server whose listener accepts the streams
// given to ServeConn. The library never closes an accepted stream (it
// waits for the peer to), so Close closes them.
type xexpServer struct {
	ln  *streamListener
	srv *jsonrpc2.Server
	streams
}

func newXExp() Server {
	h := jsonrpc2.HandlerFunc(func(_ context.Context, req *jsonrpc2.Request) (any, error) {
		var p []string
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, errNotOne
		}
		return echo(p)
	})
	ln := &streamListener{next: make(chan io.ReadWriteCloser), done: make(chan struct{})}
	opts := jsonrpc2.ConnectionOptions{Framer: jsonrpc2.RawFramer(), Handler: h}
	srv, err := jsonrpc2.Serve(context.Background(), ln, opts)
	if err != nil {
		panic(err) // Serve returns no error today
	}
	return &xexpServer{ln: ln, srv: srv}
}

func (s *xexpServer) ServeConn(rwc io.ReadWriteCloser) {
	lines := &lineWriter{ReadWriteCloser: rwc}
	s.add(rwc, func() {
		select {
		case s.ln.next <- lines:
		case <-s.ln.done:
		}
	})
}

// lineWriter ends each Write with a newline. RawFramer writes each message
// with one Write and no separator; with a newline after each, the stream
// is newline-delimited like every other server's here (and loadgen's
// newline framing can read it). It copies each message once.
type lineWriter struct {
	io.ReadWriteCloser
	buf []byte
	mu  sync.Mutex
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(append(w.buf[:0], p...), '\n')
	n, err := w.ReadWriteCloser.Write(w.buf)
	return min(n, len(p)), err
}

func (s *xexpServer) Close() {
	s.ln.Close()
	s.closeAll()
	_ = s.srv.Wait() // the streams' ends, as errors
}

// streamListener is a jsonrpc2.Listener that accepts the streams sent on
// next, until Close.
type streamListener struct {
	next chan io.ReadWriteCloser
	done chan struct{}
	once sync.Once
}

func (l *streamListener) Accept(ctx context.Context) (io.ReadWriteCloser, error) {
	select {
	case rwc := <-l.next:
		return rwc, nil
	case <-l.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (l *streamListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Dialer returns nil: streams come only through ServeConn.
func (l *streamListener) Dialer() jsonrpc2.Dialer { return nil }
