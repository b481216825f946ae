package redisstore_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The test client of the end-to-end tests: raw Streamable HTTP, so that
// every status, header and event id is seen as sent.

const testVersion = "2025-11-25"

// call POSTs body on session sid ("" for none) and returns the response
// with its body read.
func call(t *testing.T, url, sid, body string) (*http.Response, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", testVersion)
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + testVersion + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// open initializes a session on url and returns its id.
func open(t *testing.T, url string) string {
	t.Helper()
	resp, b := call(t, url, "", initBody)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, b)
	}
	if resp, b := call(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", resp.StatusCode, b)
	}
	return sid
}

// callTool calls a tool on session sid and fails the test unless it
// succeeds.
func callTool(t *testing.T, url, sid, name, args string) {
	t.Helper()
	resp, b := call(t, url, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+name+`","arguments":`+args+`}}`)
	var m struct {
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &m) != nil || m.Result == nil || m.Result.IsError {
		t.Fatalf("tools/call %s: %d %s", name, resp.StatusCode, b)
	}
}

// sseEvent is one event of a stream: its id ("" for none) and data.
type sseEvent struct{ id, data string }

// seq returns the number in the event's id ("<stream>.<n>").
func (e sseEvent) seq() uint64 {
	i := strings.LastIndexByte(e.id, '.')
	n, _ := strconv.ParseUint(e.id[i+1:], 10, 64)
	return n
}

// getStream is an open GET: its events arrive on events, which is closed
// when the response ends.
type getStream struct {
	resp   *http.Response
	events chan sseEvent
	cancel context.CancelFunc
}

// get opens a GET of session sid (resuming after lastID unless ""), and
// fails the test unless it is an event stream.
func get(t *testing.T, url, sid, lastID string) *getStream {
	t.Helper()
	resp, cancel := getResp(t, url, sid, lastID)
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		t.Fatalf("GET: %d %s", resp.StatusCode, b)
	}
	g := &getStream{resp: resp, events: make(chan sseEvent, 64), cancel: cancel}
	go g.read()
	t.Cleanup(g.close)
	return g
}

func getResp(t *testing.T, url, sid, lastID string) (*http.Response, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", testVersion)
	req.Header.Set("Mcp-Session-Id", sid)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	return resp, cancel
}

func (g *getStream) read() {
	defer close(g.events)
	br := bufio.NewReader(g.resp.Body)
	var e sseEvent
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if e.id != "" || e.data != "" {
				g.events <- e
			}
			e = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			e.id = line[4:]
		case strings.HasPrefix(line, "data: "):
			e.data += line[6:]
		}
	}
}

// next returns the next event, failing the test when none comes within
// ten seconds or the stream ends.
func (g *getStream) next(t *testing.T) sseEvent {
	t.Helper()
	select {
	case e, ok := <-g.events:
		if !ok {
			t.Fatal("the stream ended")
		}
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("no event within ten seconds")
	}
	return sseEvent{}
}

// ended waits for the stream's end, failing the test past ten seconds.
func (g *getStream) ended(t *testing.T) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-g.events:
			if !ok {
				return
			}
		case <-timeout:
			t.Fatal("the stream did not end within ten seconds")
		}
	}
}

func (g *getStream) close() {
	g.cancel()
	g.resp.Body.Close()
}
