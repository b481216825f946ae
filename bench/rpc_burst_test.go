package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/bytedance/sonic"
	"github.com/gobwas/ws"
	"github.com/valyala/fasthttp"
)

// BenchmarkRPCEchoBurst measures each server of BenchmarkRPCEcho the way
// a load generator measures a server's throughput (wrk's pipelining, the
// TechEmpower "plaintext" test): on each of rpcConns connections, the
// client writes burstDepth requests with one system call, then reads
// their burstDepth answers, and so on. Calls no longer wait on each other
// one by one, so what is left of a call's cost is mostly the server's:
// parsing, the handler, and how it writes its answers (a server that
// writes the answers of requests that came in together with one system
// call pays far less per call). One op is one call; calls/s is the
// throughput. Every answer is checked (its id, and the message sent).
func BenchmarkRPCEchoBurst(b *testing.B) {
	for _, tr := range rpcServers {
		for _, srv := range tr.servers {
			b.Run("transport="+tr.transport+"/impl="+srv.name, func(b *testing.B) {
				url, stop := srv.start(b)
				defer stop()
				burst := burstHTTP
				if tr.transport == "ws" {
					burst = burstWS
				}
				runBursts(b, url, burst)
			})
		}
	}
}

// burstDepth is how many requests a burst writes at once.
const burstDepth = 16

// A burster opens a connection to url and returns send, which sends the
// requests of one burst, and recv, which reads one answer (its body).
type burster func(ctx context.Context, url string) (send func(reqs [][]byte) error, recv func() ([]byte, error), stop func(), err error)

// runBursts makes b.N calls over rpcConns connections, in bursts, and
// checks every answer.
func runBursts(b *testing.B, url string, open burster) {
	ctx := context.Background()
	var next atomic.Int64
	var first atomic.Value
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	for c := range rpcConns {
		wg.Go(func() {
			if err := burstLoop(ctx, url, open, c, &next, int64(b.N)); err != nil {
				first.CompareAndSwap(nil, err)
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	if err := first.Load(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// burstLoop runs bursts on one connection until n calls are claimed.
func burstLoop(ctx context.Context, url string, open burster, conn int, next *atomic.Int64, n int64) error {
	send, recv, stop, err := open(ctx, url)
	if err != nil {
		return err
	}
	defer stop()
	msg := "hello, world #" + strconv.Itoa(conn)
	reqs := make([][]byte, burstDepth)
	for i := range reqs {
		reqs[i] = make([]byte, 0, 128)
	}
	var id int64
	for {
		k := 0
		for k < burstDepth && next.Add(1) <= n {
			k++
		}
		if k == 0 {
			return nil
		}
		base := id + 1
		for i := range k {
			id++
			if reqs[i], err = rpcRequest(reqs[i][:0], id, msg); err != nil {
				return err
			}
		}
		if err := send(reqs[:k]); err != nil {
			return err
		}
		seen := make([]bool, k) // a WebSocket server may answer out of order
		for range k {
			body, err := recv()
			if err != nil {
				return err
			}
			var a rpcAnswer
			if err := sonic.ConfigStd.Unmarshal(body, &a); err != nil {
				return fmt.Errorf("%v: %s", err, body)
			}
			i := a.ID - base
			if i < 0 || i >= int64(k) || seen[i] {
				return fmt.Errorf("answer to id %d in a burst of ids %d..%d: %s", a.ID, base, base+int64(k)-1, body)
			}
			seen[i] = true
			if got, err := a.check(a.ID); err != nil {
				return err
			} else if got != msg {
				return mismatch(got, msg)
			}
		}
	}
}

// burstHTTP pipelines POSTs on one HTTP/1.1 connection: fasthttp writes
// the requests and reads the responses, which come in order.
func burstHTTP(_ context.Context, url string) (func([][]byte) error, func() ([]byte, error), func(), error) {
	host := strings.TrimPrefix(url, "http://")
	nc, err := net.Dial("tcp", host)
	if err != nil {
		return nil, nil, nil, err
	}
	bw, br := bufio.NewWriterSize(nc, 16<<10), bufio.NewReaderSize(nc, 16<<10)
	var req fasthttp.Request
	req.SetRequestURI(url + "/")
	req.Header.SetMethod(fasthttp.MethodPost)
	req.Header.SetContentType("application/json")
	send := func(bodies [][]byte) error {
		for _, body := range bodies {
			req.SetBodyRaw(body)
			if err := req.Write(bw); err != nil {
				return err
			}
		}
		return bw.Flush()
	}
	var res fasthttp.Response
	recv := func() ([]byte, error) {
		res.Reset()
		if err := res.Read(br); err != nil {
			return nil, err
		}
		if res.StatusCode() != fasthttp.StatusOK {
			return nil, fmt.Errorf("status %d: %s", res.StatusCode(), res.Body())
		}
		return res.Body(), nil
	}
	return send, recv, func() { nc.Close() }, nil
}

// burstWS sends each burst's requests as masked text frames with one
// write, and reads answers frame by frame (gobwas/ws).
func burstWS(ctx context.Context, url string) (func([][]byte) error, func() ([]byte, error), func(), error) {
	nc, br, _, err := ws.Dial(ctx, url)
	if err != nil {
		return nil, nil, nil, err
	}
	if br == nil {
		br = bufio.NewReaderSize(nc, 16<<10)
	}
	var out []byte
	send := func(bodies [][]byte) error {
		out = out[:0]
		for _, body := range bodies {
			out = appendMaskedFrame(out, ws.OpText, body)
		}
		_, err := nc.Write(out)
		return err
	}
	var in []byte
	recv := func() ([]byte, error) {
		for {
			h, b, err := readFrame(br, in)
			if err != nil {
				return nil, err
			}
			in = b
			switch h.OpCode {
			case ws.OpText, ws.OpBinary:
				if !h.Fin {
					return nil, errors.New("fragmented message")
				}
				return in, nil
			case ws.OpClose:
				return nil, io.EOF
			}
		}
	}
	stop := func() {
		_ = ws.WriteFrame(nc, ws.MaskFrameInPlace(ws.NewCloseFrame(ws.NewCloseFrameBody(ws.StatusNormalClosure, ""))))
		nc.Close()
	}
	return send, recv, stop, nil
}
