package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// echoRPC answers a JSON-RPC request's id with {"ok":true}; other bodies
// (notifications) get 204.
func echoRPC(w http.ResponseWriter, body []byte) {
	id := rpcID(body)
	if id == "" {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"ok":true}}`, id)
}

// rpcID reads a request's id as loadgen writes it ("" when none).
func rpcID(body []byte) string {
	rest, ok := bytes.CutPrefix(body, []byte(resultPrefix))
	if !ok {
		return ""
	}
	id, _, _ := bytes.Cut(rest, []byte(","))
	return string(id)
}

// TestLoad_httpAnswers: loadgen's HTTP client against servers that answer
// in each way HTTP allows: every call is answered once and counted as the
// engine's client would count it.
func TestLoad_httpAnswers(t *testing.T) {
	var calls atomic.Int64
	for _, tc := range []struct {
		name    string
		handler func(w http.ResponseWriter, r *http.Request, body []byte)
		ok      int64            // of 200 calls
		codes   map[string]int64 // error answers by code
	}{
		{"content-length", func(w http.ResponseWriter, r *http.Request, body []byte) { echoRPC(w, body) }, 200, nil},
		{"chunked", func(w http.ResponseWriter, r *http.Request, body []byte) {
			w.Header().Set("Content-Type", "application/json")
			w.(http.Flusher).Flush() // the head first: the body is chunked
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,`, rpcID(body))
			w.(http.Flusher).Flush()
			io.WriteString(w, `"result":{"ok":true}}`)
		}, 200, nil},
		{"connection-close", func(w http.ResponseWriter, r *http.Request, body []byte) {
			w.Header().Set("Connection", "close")
			echoRPC(w, body)
		}, 200, nil},
		{"status-429", func(w http.ResponseWriter, r *http.Request, body []byte) {
			if calls.Add(1)%2 == 0 { // every other call
				w.Header().Set("Retry-After", "1")
				http.Error(w, "slow down", http.StatusTooManyRequests)
				return
			}
			echoRPC(w, body)
		}, 100, map[string]int64{"-32011": 100}},
		{"not-json", func(w http.ResponseWriter, r *http.Request, body []byte) {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "hello")
		}, 0, map[string]int64{"-32603": 200}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				tc.handler(w, r, body)
			}))
			defer hs.Close()
			r, _, out := load(t, "-n", "200", "-c", "2", "-depth", "4", "-timeout", "5s", hs.URL+"/rpc")
			var errAnswers int64
			for _, n := range tc.codes {
				errAnswers += n
			}
			if r.Responses != 200 || r.OK != tc.ok || r.Lost != 0 || r.TransportErrors != 0 || r.Errors != errAnswers || fmt.Sprint(r.ErrorCodes) != fmt.Sprint(orEmpty(tc.codes)) {
				t.Errorf("responses %d ok %d lost %d transport errors %d errors %d codes %v; want 200, %d, 0, 0, %d, %v\n%s",
					r.Responses, r.OK, r.Lost, r.TransportErrors, r.Errors, r.ErrorCodes, tc.ok, errAnswers, orEmpty(tc.codes), out)
			}
		})
	}
}

func orEmpty(m map[string]int64) map[string]int64 {
	if m == nil {
		return map[string]int64{}
	}
	return m
}

// TestLoad_httpServerHangsUp: a server that closes connections without
// answering fails the calls in flight as transport errors; the run ends.
func TestLoad_httpServerHangsUp(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer ln.Close()
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Read(make([]byte, 4096))
			c.Close()
		}
	})
	r, code, out := load(t, "-n", "50", "-c", "1", "-depth", "4", "http://"+ln.Addr().String()+"/rpc")
	if code != 1 || r.OK != 0 || r.TransportErrors == 0 || r.Lost != 0 || !strings.Contains(out, "closed the connection") {
		t.Errorf("exit %d, ok %d, transport errors %d, lost %d: want 1, 0, some, 0, and the reason said\n%s", code, r.OK, r.TransportErrors, r.Lost, out)
	}
}

// mcpServer is a Streamable HTTP server of the least loadgen needs:
// initialize (giving a session), notifications (202), tools/call
// answered by answer, GET by resume (405 when nil), DELETE (counted).
type mcpServer struct {
	answer  func(w http.ResponseWriter, id string)
	resume  func(w http.ResponseWriter, r *http.Request)
	deleted atomic.Int64
	unknown atomic.Int64 // requests without the session or version
}

func (m *mcpServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodDelete:
		m.deleted.Add(1)
		return
	case http.MethodGet:
		if m.resume == nil {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		m.resume(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	if bytes.Contains(body, []byte(`"initialize"`)) {
		w.Header().Set("Mcp-Session-Id", "s1")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"t","version":"1"}}}`, rpcID(body))
		return
	}
	if r.Header.Get("Mcp-Session-Id") != "s1" || r.Header.Get("Mcp-Protocol-Version") != "2025-11-25" {
		m.unknown.Add(1)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	id := rpcID(body)
	if id == "" {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	m.answer(w, id)
}

// TestLoad_mcpHTTPAnswers: Streamable HTTP answered as JSON, as an event
// stream, and as an event stream that breaks before its answer (which the
// engine's client resumes with GET and Last-Event-ID); the session id and
// version go with each call, and the session is ended with DELETE.
func TestLoad_mcpHTTPAnswers(t *testing.T) {
	result := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"hi"}]}}`
	}
	for _, tc := range []struct {
		name string
		m    *mcpServer
	}{
		{"json", &mcpServer{answer: func(w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, result(id))
		}}},
		{"event-stream", &mcpServer{answer: func(w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "id: %s.0\nretry: 1000\ndata: \n\n", id)
			fmt.Fprintf(w, "id: %s.1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n", id)
			fmt.Fprintf(w, "id: %s.2\nevent: message\ndata: %s\n\n", id, result(id))
		}}},
		{"resumed", &mcpServer{
			answer: func(w http.ResponseWriter, id string) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprintf(w, "id: %s.0\nretry: 1\ndata: \n\n", id) // and no answer
			},
			resume: func(w http.ResponseWriter, r *http.Request) {
				id, _, _ := strings.Cut(r.Header.Get("Last-Event-Id"), ".")
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprintf(w, "id: %s.1\ndata: %s\n\n", id, result(id))
			},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs := httptest.NewServer(tc.m)
			defer hs.Close()
			r, code, out := load(t, "-n", "100", "-c", "2", "-depth", "4", "-timeout", "5s", "-mcp", "-tool", "echo", hs.URL+"/mcp")
			if code != 0 || r.OK != 100 || r.Errors != 0 {
				t.Errorf("exit %d, ok %d, errors %d: want 0, 100, 0\n%s", code, r.OK, r.Errors, out)
			}
			if n := tc.m.unknown.Load(); n != 0 {
				t.Errorf("%d requests came without the session id or the version", n)
			}
			if n := tc.m.deleted.Load(); n != 2 {
				t.Errorf("%d sessions ended with DELETE; want 2", n)
			}
		})
	}
}

// TestLoad_httpPipelined: with -pipeline, requests share connections in
// HTTP/1.1 pipelining, and every one is answered once, in order, also
// when the answers come in one write or split across several. A server
// that closes a connection with requests pipelined behind an answer
// (Connection: close) fails them as transport errors: the run ends.
func TestLoad_httpPipelined(t *testing.T) {
	var conns atomic.Int64
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		echoRPC(w, body)
	}))
	hs.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	hs.Start()
	defer hs.Close()
	r, code, out := load(t, "-n", "2000", "-c", "2", "-depth", "8", "-pipeline", "4", "-timeout", "5s", hs.URL+"/rpc")
	if code != 0 || r.OK != 2000 || r.Errors != 0 {
		t.Errorf("exit %d, ok %d, errors %d: want 0, 2000, 0\n%s", code, r.OK, r.Errors, out)
	}
	if n := conns.Load(); n != 4 {
		t.Errorf("%d connections; want 2 × 8/4 = 4", n)
	}

	closing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Connection", "close")
		echoRPC(w, body)
	}))
	defer closing.Close()
	r, code, out = load(t, "-n", "200", "-c", "1", "-depth", "4", "-pipeline", "4", "-timeout", "5s", closing.URL+"/rpc")
	if r.OK == 0 || r.TransportErrors == 0 || r.Lost != 0 || !strings.Contains(out, "closed the connection") {
		t.Errorf("exit %d, ok %d, transport errors %d, lost %d: want the first answered, the calls behind it failed, none lost, the reason said\n%s", code, r.OK, r.TransportErrors, r.Lost, out)
	}
}
