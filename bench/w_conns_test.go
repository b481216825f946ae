package bench

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/bench/echo"
)

// W6: many connections. Each implementation's echo server listens on
// loopback TCP; manyConns clients connect, then each writes perConn
// requests in one write and reads their answers, all at once.

const (
	manyConns = 1000
	perConn   = 100
)

// conns is how many connections W6 opens: manyConns, or a tenth with
// -short (the test command's smoke run).
func conns() int {
	if testing.Short() {
		return manyConns / 10
	}
	return manyConns
}

// BenchmarkManyConns is W6. One op is one round: every connection sends
// perConn requests and reads the answers; req/s is the throughput.
// B/conn is the heap and stacks in use (after two GCs) with every connection
// open and idle after its last round, less what was in use before the
// server started, per connection: the server's share and the client's
// socket (the same few hundred bytes for every implementation).
func BenchmarkManyConns(b *testing.B) {
	for _, name := range echo.Names {
		b.Run("impl="+name, func(b *testing.B) {
			n := conns()
			before := inUse()
			l := startConns(b, name, n)
			defer l.stop()
			var base int64
			for b.Loop() {
				if err := l.round(perConn, base); err != nil {
					b.Fatal(err)
				}
				base += perConn
			}
			b.ReportMetric(float64(b.N*n*perConn)/b.Elapsed().Seconds(), "req/s")
			b.ReportMetric(float64(inUse()-before)/float64(n), "B/conn")
		})
	}
}

// inUse returns the bytes of heap and stacks in use after two GCs: what an
// idle process holds for good. The first GC only moves what sync.Pools
// hold (every implementation's, and the runtime's) to their victim
// caches, the second frees it; a long-idle server runs both.
func inUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse)
}

// connLoad is a server on loopback and its clients' connections.
type connLoad struct {
	s      echo.Server
	ln     net.Listener
	served chan error
	conns  []net.Conn
}

// startConns serves impl name on a loopback port and dials n connections.
func startConns(tb testing.TB, name string, n int) *connLoad {
	s, err := echo.New(name)
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	l := &connLoad{s: s, ln: ln, served: make(chan error, 1)}
	go func() { l.served <- echo.Serve(ln, s) }()
	for range n {
		nc, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			l.stop()
			tb.Fatal(err)
		}
		l.conns = append(l.conns, nc)
	}
	return l
}

// round has every connection send per requests (ids base…base+per-1) in
// one write and read their answers, each id once.
func (l *connLoad) round(per int, base int64) error {
	var wg sync.WaitGroup
	errs := make([]error, len(l.conns))
	for i, nc := range l.conns {
		wg.Go(func() { errs[i] = connRound(nc, per, base) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// connRound is one connection's part of a round.
func connRound(nc net.Conn, per int, base int64) error {
	buf := make([]byte, 0, per*72)
	for i := range int64(per) {
		buf = append(appendRequest(buf, base+i), '\n')
	}
	if _, err := nc.Write(buf); err != nil {
		return err
	}
	vr := newValueReader(nc, 4<<10)
	ids := newIDSet(per)
	for range per {
		v, err := vr.next()
		if err != nil {
			return err
		}
		id, err := answerID(v)
		if err == nil {
			err = ids.add(id - base)
		}
		if err != nil {
			return fmt.Errorf("connection %s: %w", nc.LocalAddr(), err)
		}
	}
	return nil
}

// stop closes the clients, the listener and the server.
func (l *connLoad) stop() {
	for _, nc := range l.conns {
		nc.Close()
	}
	l.ln.Close()
	<-l.served
	l.s.Close()
}
