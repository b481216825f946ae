package conn_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/router"
)

func TestConn_CallBatch_againstASession(t *testing.T) {
	r := testRouter(t)
	notified := make(chan string, 1)
	if err := r.Register("note", router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
		notified <- string(req.Params)
		return nil, nil
	}), nil); err != nil {
		t.Fatal(err)
	}
	client, _ := pair(t, nil, r)
	calls := []conn.BatchCall{
		{Method: "echo", Params: []int{1}},
		{Method: "note", Params: []string{"n"}, Notify: true},
		{Method: "sleep", Params: []int{20}},
		{Method: "forbidden"},
		{Method: "echo_async", Params: codec.Raw(`{"a":"b"}`)},
		{Method: "no_such_method"},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := client.CallBatch(ctx, calls); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		result string
		code   codec.Code
	}{{`[1]`, 0}, {``, 0}, {`20`, 0}, {``, codec.CodeForbidden}, {`{"a":"b"}`, 0}, {``, codec.CodeMethodNotFound}}
	seen := map[string]bool{}
	for i, w := range want {
		bc := calls[i]
		if string(bc.Result) != w.result {
			t.Errorf("element %d: result %s, want %s", i, bc.Result, w.result)
		}
		var e *codec.Error
		switch {
		case w.code == 0 && bc.Err != nil:
			t.Errorf("element %d: %v", i, bc.Err)
		case w.code != 0 && (!errors.As(bc.Err, &e) || e.Code != w.code):
			t.Errorf("element %d: err %v, want code %d", i, bc.Err, w.code)
		}
		if bc.Notify != (bc.ID == nil) {
			t.Errorf("element %d: id %q (notification: %v)", i, bc.ID, bc.Notify)
		}
		if bc.ID != nil && seen[string(bc.ID)] {
			t.Errorf("element %d: id %s used twice", i, bc.ID)
		}
		seen[string(bc.ID)] = true
	}
	if got := <-notified; got != `["n"]` {
		t.Errorf("notification params %s", got)
	}
	// The session goes on with plain calls, their ids apart from the batch's.
	var n []int
	if err := client.Call(ctx, "echo", []int{7}, &n); err != nil || !slices.Equal(n, []int{7}) {
		t.Fatalf("Call after the batch: %v, %v", n, err)
	}
}

// scriptedPeer reads the messages a session sends on the other end of a
// net.Pipe and lets a test answer them by hand.
type scriptedPeer struct {
	t  *testing.T
	nc net.Conn
	sc *bufio.Scanner
	mu sync.Mutex // serialises writes
}

func newScriptedPeer(t *testing.T, opts *conn.Options) (*conn.Conn, *scriptedPeer) {
	t.Helper()
	a, b := net.Pipe()
	c := conn.New(a, opts)
	t.Cleanup(func() {
		b.Close()
		c.Close()
	})
	return c, &scriptedPeer{t: t, nc: b, sc: bufio.NewScanner(b)}
}

// read returns the next message the session sent.
func (p *scriptedPeer) read() []codec.Message {
	p.t.Helper()
	p.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if !p.sc.Scan() {
		p.t.Fatalf("peer read: %v", p.sc.Err())
	}
	msgs, _, err := codec.NewScanner(nil).Scan(slices.Clone(p.sc.Bytes()))
	if err != nil {
		p.t.Fatalf("session sent %q: %v", p.sc.Bytes(), err)
	}
	return msgs
}

// write sends lines to the session from another goroutine (a net.Pipe write
// waits for the read).
func (p *scriptedPeer) write(lines ...string) {
	go func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, l := range lines {
			if _, err := p.nc.Write([]byte(l + "\n")); err != nil {
				return
			}
		}
	}()
}

func TestConn_CallBatch_matchesAnswersInAnyOrder(t *testing.T) {
	c, p := newScriptedPeer(t, nil)
	calls := []conn.BatchCall{{Method: "a"}, {Method: "b", Params: []int{2}}, {Method: "c", Notify: true}, {Method: "d"}}
	done := make(chan error, 1)
	go func() { done <- c.CallBatch(context.Background(), calls) }()
	msgs := p.read()
	if len(msgs) != 4 {
		t.Fatalf("the batch went out as %d messages in one array, want 4", len(msgs))
	}
	if msgs[2].Kind != codec.KindNotification || string(msgs[1].Params) != `[2]` {
		t.Fatalf("batch elements: %+v", msgs)
	}
	ids := []string{string(msgs[0].ID), string(msgs[1].ID), string(msgs[3].ID)}
	// Answers in reverse order, one of them alone, the others as an array.
	p.write(
		`{"jsonrpc":"2.0","id":`+ids[2]+`,"result":"d"}`,
		`[{"jsonrpc":"2.0","id":`+ids[1]+`,"error":{"code":-32602,"message":"bad"}},{"jsonrpc":"2.0","id":`+ids[0]+`,"result":"a"}]`,
	)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var e *codec.Error
	if string(calls[0].Result) != `"a"` || string(calls[3].Result) != `"d"` ||
		!errors.As(calls[1].Err, &e) || e.Code != codec.CodeInvalidParams || calls[2].Result != nil || calls[2].Err != nil {
		t.Fatalf("elements: %+v", calls)
	}
}

func TestConn_CallBatch_sendsNothingWhenItCannot(t *testing.T) {
	c, p := newScriptedPeer(t, nil)
	ctx := context.Background()
	if err := c.CallBatch(ctx, nil); !errors.Is(err, conn.ErrEmptyBatch) {
		t.Errorf("empty batch: %v", err)
	}
	calls := []conn.BatchCall{{Method: "a"}, {Method: "b", Params: 3}}
	if err := c.CallBatch(ctx, calls); !errors.Is(err, conn.ErrBadParams) {
		t.Errorf("scalar params: %v", err)
	}
	if calls[0].ID != nil || calls[0].Err != nil {
		t.Errorf("a batch not sent changed its elements: %+v", calls[0])
	}
	// Nothing went out: the next message the peer reads is this call.
	go c.Notify(ctx, "after", nil)
	if m := p.read(); string(m[0].Method) != "after" {
		t.Errorf("peer read %q first", m[0].Method)
	}
	c.Close()
	if err := c.CallBatch(ctx, []conn.BatchCall{{Method: "a"}}); !errors.Is(err, conn.ErrClosed) {
		t.Errorf("closed session: %v", err)
	}
}

func TestConn_CallBatch_contextEndsTheUnanswered(t *testing.T) {
	// The reader takes messages in order: once it has dropped the bogus
	// answer, it has delivered the one before.
	dropped := make(chan struct{})
	c, p := newScriptedPeer(t, &conn.Options{OnUnmatched: func(conn.Unmatched, []byte) { close(dropped) }})
	ctx, cancel := context.WithCancel(context.Background())
	calls := []conn.BatchCall{{Method: "answered"}, {Method: "never"}}
	done := make(chan error, 1)
	go func() { done <- c.CallBatch(ctx, calls) }()
	msgs := p.read()
	p.write(`{"jsonrpc":"2.0","id":`+string(msgs[0].ID)+`,"result":1}`, `{"jsonrpc":"2.0","id":"sync","result":1}`)
	<-dropped
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var ce *conn.CanceledCallError
	if string(calls[0].Result) != "1" || !errors.As(calls[1].Err, &ce) || string(ce.ID) != string(msgs[1].ID) ||
		!errors.Is(calls[1].Err, context.Canceled) {
		t.Fatalf("elements: %+v, %+v", calls[0], calls[1])
	}
}

func TestConn_OnUnmatched_seesWhatReachesNoCaller(t *testing.T) {
	type drop struct {
		why conn.Unmatched
		id  string
	}
	var mu sync.Mutex
	var drops []drop
	c, p := newScriptedPeer(t, &conn.Options{OnUnmatched: func(why conn.Unmatched, id []byte) {
		mu.Lock()
		drops = append(drops, drop{why, string(id)})
		mu.Unlock()
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first := make(chan error, 1)
	var got string
	go func() { first <- c.Call(ctx, "first", nil, &got) }()
	id := string(p.read()[0].ID)
	p.write(
		`{"jsonrpc":"2.0","id":99999,"result":"not yours"}`,
		`{"jsonrpc":"2.0","id":"x","result":"not yours"}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"refused"}}`,
		`{"jsonrpc":"2.0","id":`+id+`,"result":"mine"}`,
		`{"jsonrpc":"2.0","id":`+id+`,"result":"again"}`,
	)
	if err := <-first; err != nil || got != "mine" {
		t.Fatalf("first = %q, %v", got, err)
	}
	// A second call gets its own answer, not the duplicate of the first.
	second := make(chan error, 1)
	var got2 string
	go func() { second <- c.Call(ctx, "second", nil, &got2) }()
	id2 := string(p.read()[0].ID)
	p.write(`{"jsonrpc":"2.0","id":` + id2 + `,"result":"second"}`)
	if err := <-second; err != nil || got2 != "second" {
		t.Fatalf("second = %q, %v", got2, err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []drop{{conn.UnmatchedUnknownID, "99999"}, {conn.UnmatchedUnknownID, `"x"`}, {conn.UnmatchedUnknownID, "null"}, {conn.UnmatchedNoCaller, id}}
	if !slices.Equal(drops, want) {
		t.Fatalf("dropped %v, want %v", drops, want)
	}
}

func TestNewByteStream_carriesASessionInEitherFraming(t *testing.T) {
	for _, f := range []codec.Framing{nil, codec.Header} {
		a, b := net.Pipe()
		server := conn.New(a, &conn.Options{Router: testRouter(t), Framing: f})
		client := conn.NewStream(conn.NewByteStream(b, f, nil), nil)
		var out []string
		err := client.Call(context.Background(), "echo", []string{"x\ny"}, &out)
		client.Close()
		server.Close()
		if err != nil || !slices.Equal(out, []string{"x\ny"}) {
			t.Fatalf("framing %v: %v, %v", f, out, err)
		}
	}
}

func TestUnmatched_String(t *testing.T) {
	for u, want := range map[conn.Unmatched]string{conn.UnmatchedUnknownID: "unknown id", conn.UnmatchedNoCaller: "no caller", 0: "unmatched(?)"} {
		if got := u.String(); !strings.EqualFold(got, want) {
			t.Errorf("%d: %q", u, got)
		}
	}
}
