package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	neturl "net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bytedance/sonic"
	"github.com/gobwas/ws"
	"github.com/valyala/fasthttp"
)

// The plain clients of BenchmarkRPCEcho: one for HTTP POST (fasthttp's
// PipelineClient) and one for WebSocket (gobwas/ws frames, written many
// per system call), each driving every server of its transport the same
// way, so that only the servers differ; both are lean, so that the
// servers' costs are not drowned in the client's. Both send
// {"jsonrpc":"2.0","id":N,"method":"bench_echo","params":[MSG]} and decode
// the answer with sonic: its id must be N and its result MSG.

// rpcMethod is the echo method's name on every server (go-ethereum names
// methods service_method).
const rpcMethod = "bench_echo"

// rpcRequest appends the echo request with id and msg.
func rpcRequest(dst []byte, id int64, msg string) ([]byte, error) {
	quoted, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = strconv.AppendInt(dst, id, 10)
	dst = append(dst, `,"method":"`+rpcMethod+`","params":[`...)
	dst = append(dst, quoted...)
	return append(dst, "]}"...), nil
}

// rpcAnswer is an answer as the plain clients decode it.
type rpcAnswer struct {
	ID     int64   `json:"id"`
	Result *string `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// check returns the echoed text of the answer to request id.
func (a *rpcAnswer) check(id int64) (string, error) {
	switch {
	case a.Error != nil:
		return "", fmt.Errorf("error %d: %s", a.Error.Code, a.Error.Message)
	case a.ID != id:
		return "", fmt.Errorf("answer to id %d, want %d", a.ID, id)
	case a.Result == nil:
		return "", errors.New("no result")
	}
	return *a.Result, nil
}

// plainPOST calls url's echo method with one POST per call over HTTP/1.1
// pipelining (fasthttp's PipelineClient: requests written back to back on
// a few connections, answers read in order), so the client costs little
// next to the server and the benchmark measures the server.
func plainPOST(url string) (caller, func()) {
	u, err := neturl.Parse(url)
	if err != nil {
		return func(context.Context, string) (string, error) { return "", err }, func() {}
	}
	pc := &fasthttp.PipelineClient{
		Addr:                u.Host,
		MaxConns:            rpcConns,
		MaxPendingRequests:  4 * callers,
		MaxIdleConnDuration: time.Second,
		ReadTimeout:         30 * time.Second,
		WriteTimeout:        30 * time.Second,
		// Its own dialer would start a DNS cache cleaner that never ends.
		Dial: func(addr string) (net.Conn, error) { return net.Dial("tcp", addr) },
	}
	var ids atomic.Int64
	call := func(ctx context.Context, msg string) (string, error) {
		id := ids.Add(1)
		req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(res)
		body, err := rpcRequest(req.Body(), id, msg)
		if err != nil {
			return "", err
		}
		req.SetBodyRaw(body)
		req.SetRequestURI(url)
		req.Header.SetMethod(fasthttp.MethodPost)
		req.Header.SetContentType("application/json")
		if d, ok := ctx.Deadline(); ok {
			err = pc.DoDeadline(req, res, d)
		} else {
			err = pc.Do(req, res)
		}
		if err != nil {
			return "", err
		}
		b := res.Body()
		if res.StatusCode() != fasthttp.StatusOK {
			return "", fmt.Errorf("status %d: %s", res.StatusCode(), b)
		}
		return decodeAnswer(b, id)
	}
	return call, func() {}
}

// rpcConns is how many connections a plain client spreads its pipelined
// calls over: one per CPU of the machine the benchmarks were written on,
// so that every server can run requests on each.
const rpcConns = 2

// decodeAnswer decodes the answer b to request id and returns the echoed
// text.
func decodeAnswer(b []byte, id int64) (string, error) {
	var a rpcAnswer
	if err := sonic.ConfigStd.Unmarshal(b, &a); err != nil {
		return "", fmt.Errorf("%v: %s", err, b)
	}
	return a.check(id)
}

// wsClient calls the echo method over one WebSocket connection (gobwas/ws
// frames), shared by every caller: callers append their masked frames to
// one buffer written out by whichever of them finds no write under way,
// many per system call; a reader goroutine hands each answer to the
// caller waiting for its id.
type wsClient struct {
	nc  net.Conn
	br  *bufio.Reader
	ids atomic.Int64

	wmu      sync.Mutex
	out      []byte // frames waiting to be written
	spare    []byte
	writing  bool
	writeErr error

	mu      sync.Mutex
	pending map[int64]chan []byte
	err     error // why the reader stopped; set under mu
	done    chan struct{}
}

// plainWS dials url and returns its call and how to close it.
func plainWS(ctx context.Context, url string) (caller, func(), error) {
	nc, br, _, err := ws.Dial(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	if br == nil {
		br = bufio.NewReaderSize(nc, 64<<10)
	}
	c := &wsClient{nc: nc, br: br, pending: map[int64]chan []byte{}, done: make(chan struct{})}
	go c.read()
	stop := func() {
		c.wmu.Lock()
		_ = ws.WriteFrame(nc, ws.MaskFrameInPlace(ws.NewCloseFrame(ws.NewCloseFrameBody(ws.StatusNormalClosure, ""))))
		c.wmu.Unlock()
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
		}
		nc.Close()
		<-c.done
	}
	return c.call, stop, nil
}

// read hands each text message to the caller waiting for its id, answers
// pings, and stops at a close frame or an error.
func (c *wsClient) read() {
	defer close(c.done)
	err := c.readLoop()
	c.mu.Lock()
	c.err = err
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	c.mu.Unlock()
}

func (c *wsClient) readLoop() error {
	for {
		h, b, err := readFrame(c.br, nil)
		if err != nil {
			return err
		}
		switch h.OpCode {
		case ws.OpClose:
			return io.EOF
		case ws.OpPing:
			c.send(ws.OpPong, b)
			continue
		case ws.OpText, ws.OpBinary:
		default:
			continue
		}
		if !h.Fin {
			return errors.New("fragmented message")
		}
		var a struct {
			ID int64 `json:"id"`
		}
		if err := sonic.ConfigStd.Unmarshal(b, &a); err != nil {
			return fmt.Errorf("%v: %s", err, b)
		}
		c.mu.Lock()
		ch := c.pending[a.ID]
		delete(c.pending, a.ID)
		c.mu.Unlock()
		if ch == nil {
			return fmt.Errorf("answer to unknown id %d: %s", a.ID, b)
		}
		ch <- b
	}
}

// send queues a masked frame of op with payload p (masked in place) and
// writes out everything queued unless another caller is doing so.
func (c *wsClient) send(op ws.OpCode, p []byte) error {
	c.wmu.Lock()
	if c.writeErr != nil {
		err := c.writeErr
		c.wmu.Unlock()
		return err
	}
	c.out = appendMaskedFrame(c.out, op, p)
	if c.writing {
		c.wmu.Unlock()
		return nil
	}
	c.writing = true
	for len(c.out) > 0 && c.writeErr == nil {
		out := c.out
		c.out = c.spare[:0]
		c.wmu.Unlock()
		_, err := c.nc.Write(out)
		c.wmu.Lock()
		c.spare, c.writeErr = out, err
	}
	c.writing = false
	err := c.writeErr
	c.wmu.Unlock()
	return err
}

// appendMaskedFrame appends a final frame of op carrying p, masked as a
// client's frames are (p is masked in place).
func appendMaskedFrame(dst []byte, op ws.OpCode, p []byte) []byte {
	h := ws.Header{Fin: true, OpCode: op, Masked: true, Mask: ws.NewMask(), Length: int64(len(p))}
	ws.Cipher(p, h.Mask, 0)
	var b [ws.MaxHeaderSize]byte
	w := bytes.NewBuffer(b[:0])
	_ = ws.WriteHeader(w, h)
	return append(append(dst, w.Bytes()...), p...)
}

// readFrame reads the next frame from br, its payload into buf (grown as
// needed) and unmasked.
func readFrame(br *bufio.Reader, buf []byte) (ws.Header, []byte, error) {
	h, err := ws.ReadHeader(br)
	if err != nil {
		return h, nil, err
	}
	if int64(cap(buf)) < h.Length {
		buf = make([]byte, h.Length)
	}
	buf = buf[:h.Length]
	if _, err := io.ReadFull(br, buf); err != nil {
		return h, nil, err
	}
	if h.Masked {
		ws.Cipher(buf, h.Mask, 0)
	}
	return h, buf, nil
}

func (c *wsClient) call(ctx context.Context, msg string) (string, error) {
	id := c.ids.Add(1)
	body, err := rpcRequest(make([]byte, 0, 96+len(msg)), id, msg)
	if err != nil {
		return "", err
	}
	ch := make(chan []byte, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return "", c.err
	}
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.send(ws.OpText, body); err != nil {
		return "", err
	}
	select {
	case b, ok := <-ch:
		if !ok {
			c.mu.Lock()
			defer c.mu.Unlock()
			return "", fmt.Errorf("connection ended: %w", c.err)
		}
		return decodeAnswer(b, id)
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
