package cache_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/pool"
	"github.com/mcpwire/mcpwire/router"
)

// countingPool is a real pool that counts hand-offs: a request answered
// from the cache never reaches it.
type countingPool struct {
	p *pool.Pool
	n atomic.Int64
}

func (p *countingPool) Submit(t pool.Task) error {
	p.n.Add(1)
	return p.p.Submit(t)
}

// newPool starts a pool of workers goroutines (0: the default), closed
// when the test ends.
func newPool(t testing.TB, workers int) *countingPool {
	t.Helper()
	p, err := pool.New(&pool.Options{Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return &countingPool{p: p}
}

// peer is the client end of a session: raw lines in and out, so that ids
// and results can be checked byte for byte.
type peer struct {
	t  testing.TB
	nc net.Conn
	br *bufio.Reader // large enough for any answer of these tests
}

// serve starts a session serving r with the executor ex on one end of a
// net.Pipe and returns the other end.
func serve(t testing.TB, r *router.Router, ex conn.Executor) *peer {
	t.Helper()
	a, b := net.Pipe()
	c := conn.New(a, &conn.Options{Router: r, Pool: ex})
	t.Cleanup(func() {
		b.Close()
		c.Close()
		c.Wait()
	})
	return &peer{t: t, nc: b, br: bufio.NewReaderSize(b, 1<<20)}
}

// send writes lines from a goroutine (a net.Pipe write waits for the
// reader, and the session may be writing answers meanwhile).
func (p *peer) send(lines ...string) {
	go func() {
		var buf bytes.Buffer
		for _, l := range lines {
			buf.WriteString(l)
			buf.WriteByte('\n')
		}
		p.nc.Write(buf.Bytes())
	}()
}

// recv returns the next answer line, without its newline.
func (p *peer) recv() []byte {
	p.t.Helper()
	p.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := p.br.ReadBytes('\n')
	if err != nil {
		p.t.Fatalf("reading an answer: %v", err)
	}
	return line[:len(line)-1]
}

// call sends one request and returns its answer.
func (p *peer) call(line string) []byte {
	p.t.Helper()
	p.send(line)
	return p.recv()
}

// idOf returns the raw id of an answer, as it was written.
func idOf(t testing.TB, answer []byte) string {
	t.Helper()
	var m struct{ ID json.RawMessage }
	if err := json.Unmarshal(answer, &m); err != nil {
		t.Fatalf("%s: %v", answer, err)
	}
	return string(m.ID)
}

// waitFor polls cond until it holds, for at most 10 seconds.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
