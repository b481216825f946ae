package main

import (
	"bufio"
	"bytes"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkThroughput: what loadgen pushes through the demo server over
// loopback TCP, next to the engine's own pipelined benchmark client on
// the same server in the same run (conn's BenchmarkEchoPipelined client:
// blocks of 256 requests written again and again on one connection, each
// answer read and checked). loadgen runs one connection 2048 deep, every
// answer matched by id and timed, as its defaults have it (on one
// processor: -procs 0 with one connection). Compare the req/s metrics (ns/op is per
// request for both), and cpu-ns/req: the client's own CPU time (user and
// system) per request, which a busy shared machine blurs far less than
// wall time — the server being the same, the client that spends less CPU
// per request leaves the server more.
func BenchmarkThroughput(b *testing.B) {
	s := startServer(b, "-listen", "tcp://127.0.0.1:0")
	addr := strings.TrimPrefix(s.addr, "tcp://")
	const params = `{"text":"hello, world","n":42,"tags":["a","b"]}`
	b.Run("client=pipelined", func(b *testing.B) {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		defer nc.Close()
		var block []byte
		for i := range 256 {
			block = append(block, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"echo","params":`+params+"}\n"...)
		}
		tail := []byte(`"result":` + params + "}\n")
		b.ResetTimer()
		cpu := cpuSpent()
		go func() {
			for sent := 0; sent < b.N; sent += 256 {
				n := min(256, b.N-sent)
				end := len(block)
				if n < 256 {
					end = bytes.Index(block, []byte(`{"jsonrpc":"2.0","id":`+strconv.Itoa(n)+`,`))
				}
				if _, err := nc.Write(block[:end]); err != nil {
					return
				}
			}
		}()
		br := bufio.NewReaderSize(nc, 64<<10)
		for i := 0; i < b.N; i++ {
			line, err := br.ReadSlice('\n')
			if err != nil || !bytes.HasSuffix(line, tail) {
				b.Fatalf("answer %d: %q %v", i, line, err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		b.ReportMetric(float64(cpu())/float64(b.N), "cpu-ns/req")
	})
	b.Run("client=loadgen", func(b *testing.B) {
		cpu := cpuSpent()
		r, code, out := load(b, "-n", strconv.Itoa(b.N), "-depth", "2048", "-params", params, s.addr)
		if code != 0 || r.OK != int64(b.N) {
			b.Fatalf("exit %d, %d of %d answered:\n%s", code, r.OK, b.N, out)
		}
		b.ReportMetric(r.ThroughputRPS, "req/s")
		b.ReportMetric(float64(cpu())/float64(b.N), "cpu-ns/req")
	})
}

// cpuSpent starts a CPU clock: the function it returns tells the CPU
// time this process has used since.
func cpuSpent() func() time.Duration {
	u0, s0 := cpuTime()
	return func() time.Duration {
		u, s := cpuTime()
		return u - u0 + s - s0
	}
}
