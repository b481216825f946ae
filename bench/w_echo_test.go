package bench

import (
	"bufio"
	"fmt"
	"net"
	"testing"

	"github.com/mcpwire/mcpwire/bench/echo"
)

// W1, W2 and W3: the echo service of package echo, one server per
// implementation, driven over net.Pipe by the raw client (wire_test.go).

// startEcho serves one end of a net.Pipe with the server named name and
// returns the other end and how to stop both.
func startEcho(tb testing.TB, name string) (net.Conn, func()) {
	s, err := echo.New(name)
	if err != nil {
		tb.Fatal(err)
	}
	cli, srv := net.Pipe()
	s.ServeConn(srv)
	return cli, func() {
		cli.Close()
		s.Close()
	}
}

// BenchmarkEcho is W1: one echo request outstanding at a time over
// net.Pipe. One op is one round trip.
func BenchmarkEcho(b *testing.B) {
	for _, name := range echo.Names {
		b.Run("impl="+name, func(b *testing.B) {
			cli, stop := startEcho(b, name)
			defer stop()
			b.ReportAllocs()
			if err := roundTrips(b, cli); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// roundTrips makes b.N round trips (b.Loop), checking each answer.
func roundTrips(b *testing.B, nc net.Conn) error {
	vr := newValueReader(nc, 64<<10)
	var req []byte
	var err error
	for id := int64(0); b.Loop(); id++ {
		if req, err = echoOnce(nc, vr, req, id); err != nil {
			return err
		}
	}
	return nil
}

// echoOnce sends the request with id (built in buf, returned for reuse)
// and checks its answer.
func echoOnce(nc net.Conn, vr *valueReader, buf []byte, id int64) ([]byte, error) {
	buf = append(appendRequest(buf[:0], id), '\n')
	if _, err := nc.Write(buf); err != nil {
		return buf, err
	}
	v, err := vr.next()
	if err != nil {
		return buf, err
	}
	got, err := answerID(v)
	if err == nil && got != id {
		err = fmt.Errorf("answer to id %d, want %d", got, id)
	}
	return buf, err
}

// Pipelining: the writer sends chunks of chunk requests while at most
// window chunks are unanswered.
const (
	chunk  = 64
	window = 4
)

// BenchmarkEchoPipelined is W2: b.N echo requests streamed over one
// net.Pipe while the answers are read, at most chunk×window unanswered.
// One op is one request; every id must be answered exactly once.
func BenchmarkEchoPipelined(b *testing.B) {
	for _, name := range echo.Names {
		b.Run("impl="+name, func(b *testing.B) {
			cli, stop := startEcho(b, name)
			defer stop()
			b.ReportAllocs()
			if err := pipeline(b, cli, b.N); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
			printPeak(b) // W7's child (w_rss_test.go)
		})
	}
}

// pipeline sends n requests (ids 0…n-1) on nc and reads their answers,
// checking each id is answered once. With b set, only the exchange is
// timed.
func pipeline(b *testing.B, nc net.Conn, n int) error {
	ids := newIDSet(n)
	vr := newValueReader(nc, 64<<10)
	tokens := make(chan struct{}, window)
	for range window {
		tokens <- struct{}{}
	}
	wrote := make(chan error, 1)
	if b != nil {
		b.ResetTimer()
	}
	go func() {
		bw := bufio.NewWriterSize(nc, 16<<10)
		var buf []byte
		for sent := 0; sent < n; sent += chunk {
			<-tokens
			buf = buf[:0]
			for id := sent; id < min(sent+chunk, n); id++ {
				buf = append(appendRequest(buf, int64(id)), '\n')
			}
			bw.Write(buf)
			if err := bw.Flush(); err != nil {
				wrote <- err
				return
			}
		}
		wrote <- nil
	}()
	for got := 1; got <= n; got++ {
		v, err := vr.next()
		if err != nil {
			return fmt.Errorf("answer %d of %d: %w", got, n, err)
		}
		id, err := answerID(v)
		if err == nil {
			err = ids.add(id)
		}
		if err != nil {
			return err
		}
		if got%chunk == 0 {
			tokens <- struct{}{}
		}
	}
	if b != nil {
		b.StopTimer()
	}
	return <-wrote
}

// batchSize is W3's batch.
const batchSize = 100

// BenchmarkEchoBatch is W3: a batch of batchSize echo requests, one at a
// time, over net.Pipe. One op is one batch; ns/item is per request.
func BenchmarkEchoBatch(b *testing.B) {
	for _, name := range echo.Names {
		b.Run("impl="+name, func(b *testing.B) {
			if why, ok := echo.NoBatches[name]; ok {
				b.Skip(name + " has no batches: " + why)
			}
			cli, stop := startEcho(b, name)
			defer stop()
			b.ReportAllocs()
			vr := newValueReader(cli, 64<<10)
			var frame []byte
			var base int64
			for b.Loop() {
				frame = appendBatch(frame[:0], base)
				if err := batchRoundTrip(cli, vr, frame, base); err != nil {
					b.Fatal(err)
				}
				base += batchSize
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/batchSize, "ns/item")
		})
	}
}

// appendBatch appends a batch of the requests with ids base…base+99.
func appendBatch(dst []byte, base int64) []byte {
	dst = append(dst, '[')
	for i := range int64(batchSize) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendRequest(dst, base+i)
	}
	return append(dst, ']', '\n')
}

// batchRoundTrip writes frame and checks its answer: an array answering
// each id of the batch once.
func batchRoundTrip(nc net.Conn, vr *valueReader, frame []byte, base int64) error {
	if _, err := nc.Write(frame); err != nil {
		return err
	}
	v, err := vr.next()
	if err != nil {
		return err
	}
	var seen [batchSize]bool
	n := 0
	err = answers(v, func(id int64) error {
		if id < base || id >= base+batchSize || seen[id-base] {
			return fmt.Errorf("answer to id %d in the batch from %d", id, base)
		}
		seen[id-base] = true
		n++
		return nil
	})
	if err == nil && n != batchSize {
		err = fmt.Errorf("%d answers to a batch of %d: %.200s", n, batchSize, v)
	}
	return err
}
