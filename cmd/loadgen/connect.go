package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// dialAll opens the run's connections, connection i to the target of
// ds[i mod len(ds)], each with its worker, within 10 s in all, and
// returns them with the count of those that could not be opened, by
// target.
//
// With one target, a connection that cannot be opened fails the run
// (nothing is left open). With several, it stands for its target's
// failure: a deadStream whose first write fails, so the requests of that
// write count as transport errors of that target, and the run goes on
// with the others; only when no connection at all could be opened does
// the run fail.
func dialAll(ctx context.Context, ds []*dialer, r *runner) ([]*worker, []int, error) {
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n := len(ds)
	ws := make([]*worker, 0, r.conns)
	failed := make([]int, n)
	var first error
	for i := range r.conns {
		d := ds[i%n]
		s, err := d.dial(dctx)
		if err != nil {
			if first == nil {
				first = fmt.Errorf("connection %d of %d to %s: %v", i+1, r.conns, d.t.url, err)
			}
			if n == 1 {
				break
			}
			failed[i%n]++
			dead := newDeadStream(fmt.Errorf("%s: %v", d.t.url, err))
			r.transportError(dead.err) // now: its worker may never write (-n spent first)
			s = dead
		}
		ws = append(ws, newWorker(r, i, s, d.lines()))
	}
	if first != nil && (n == 1 || sum(failed) == r.conns) {
		for _, w := range ws { // a run closes them itself; this one will not run
			w.stream.Close()
		}
		return nil, nil, first
	}
	return ws, failed, nil
}

// failedConns counts the connections of ts that could not be opened.
func failedConns(ts []TargetReport) int {
	n := 0
	for _, t := range ts {
		n += t.FailedConns
	}
	return n
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// serversCPU is the CPU time the stdio servers that ds started have used
// over their lives, as dialer.serversCPU says; false unless every dialer
// can tell.
func serversCPU(ds []*dialer) (time.Duration, bool) {
	var all time.Duration
	for _, d := range ds {
		spent, ok := d.serversCPU()
		if !ok {
			return 0, false
		}
		all += spent
	}
	return all, true
}

// deadStream is a connection that could not be opened (conn.Stream):
// every Write fails with why; Next has nothing to read and returns
// io.EOF once the stream is closed. Safe for concurrent use.
type deadStream struct {
	err    error
	closed chan struct{}
	once   sync.Once
}

func newDeadStream(err error) *deadStream {
	return &deadStream{err: err, closed: make(chan struct{})}
}

func (d *deadStream) Next() ([]byte, error) {
	<-d.closed
	return nil, io.EOF
}

func (d *deadStream) Buffered() bool                        { return false }
func (d *deadStream) AppendFrame(dst, msg []byte) []byte    { return append(dst, msg...) }
func (d *deadStream) FrameInPlace(buf []byte, _ int) []byte { return buf }
func (d *deadStream) Write([]byte) error                    { return d.err }
func (d *deadStream) Close() error                          { d.once.Do(func() { close(d.closed) }); return nil }
