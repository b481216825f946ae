package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/coder/websocket"
)

// The plain clients of BenchmarkRPCEcho: one for HTTP POST (net/http with
// keep-alive) and one for WebSocket (coder/websocket), each driving every
// server of its transport the same way, so that only the servers differ.
// Both send {"jsonrpc":"2.0","id":N,"method":"bench_echo","params":[MSG]}
// and decode the answer with encoding/json: its id must be N and its
// result MSG.

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

// plainPOST calls url's echo method with one POST per call, over a client
// that keeps an idle connection for every pipelined caller.
func plainPOST(url string) (caller, func()) {
	hc := loopbackClient()
	var ids atomic.Int64
	call := func(ctx context.Context, msg string) (string, error) {
		id := ids.Add(1)
		body, err := rpcRequest(make([]byte, 0, 96+len(msg)), id, msg)
		if err != nil {
			return "", err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return "", err
		}
		req.Header.Set("Content-Type", "application/json")
		res, err := hc.Do(req)
		if err != nil {
			return "", err
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return "", err
		}
		if res.StatusCode != http.StatusOK {
			return "", fmt.Errorf("status %s: %s", res.Status, b)
		}
		var a rpcAnswer
		if err := json.Unmarshal(b, &a); err != nil {
			return "", fmt.Errorf("%v: %s", err, b)
		}
		return a.check(id)
	}
	return call, hc.CloseIdleConnections
}

// wsClient calls the echo method over one WebSocket connection, shared by
// every caller: a reader goroutine hands each answer to the caller waiting
// for its id.
type wsClient struct {
	ws      *websocket.Conn
	ids     atomic.Int64
	mu      sync.Mutex
	pending map[int64]chan rpcAnswer
	err     error // why the reader stopped; set under mu
	done    chan struct{}
}

// plainWS dials url and returns its call and how to close it.
func plainWS(ctx context.Context, url string) (caller, func(), error) {
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, nil, err
	}
	ws.SetReadLimit(-1)
	c := &wsClient{ws: ws, pending: map[int64]chan rpcAnswer{}, done: make(chan struct{})}
	go c.read()
	stop := func() {
		ws.Close(websocket.StatusNormalClosure, "")
		<-c.done
	}
	return c.call, stop, nil
}

func (c *wsClient) read() {
	defer close(c.done)
	for {
		_, b, err := c.ws.Read(context.Background())
		if err == nil {
			var a rpcAnswer
			if err = json.Unmarshal(b, &a); err != nil {
				err = fmt.Errorf("%v: %s", err, b)
			} else {
				c.mu.Lock()
				ch := c.pending[a.ID]
				delete(c.pending, a.ID)
				c.mu.Unlock()
				if ch == nil {
					err = fmt.Errorf("answer to unknown id %d: %s", a.ID, b)
				} else {
					ch <- a
					continue
				}
			}
		}
		c.mu.Lock()
		c.err = err
		for id, ch := range c.pending {
			close(ch)
			delete(c.pending, id)
		}
		c.mu.Unlock()
		return
	}
}

func (c *wsClient) call(ctx context.Context, msg string) (string, error) {
	id := c.ids.Add(1)
	body, err := rpcRequest(make([]byte, 0, 96+len(msg)), id, msg)
	if err != nil {
		return "", err
	}
	ch := make(chan rpcAnswer, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return "", c.err
	}
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.ws.Write(ctx, websocket.MessageText, body); err != nil {
		return "", err
	}
	select {
	case a, ok := <-ch:
		if !ok {
			c.mu.Lock()
			defer c.mu.Unlock()
			return "", fmt.Errorf("connection ended: %w", c.err)
		}
		return a.check(id)
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// wsURL turns an httptest server's URL and a path into a ws:// URL.
func wsURL(httpURL, path string) string { return "ws" + strings.TrimPrefix(httpURL, "http") + path }
