package client_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/testproc"
)

// demoserver is the demo server, built for these tests.
var demoserver = testproc.NewBinary("github.com/mcpwire/mcpwire/cmd/demoserver")

func TestMain(m *testing.M) { testproc.Main(m, demoserver.Remove) }

// server is a demo server process.
type server struct {
	*testproc.Process
	addr string // as logged: tcp://127.0.0.1:PORT
}

// startServer starts the demo server listening on TCP loopback (a port of
// its choosing, unless args give -listen) with args, and returns once it
// has logged its address. It is killed when the test ends.
func startServer(t *testing.T, args ...string) *server {
	t.Helper()
	if !strings.Contains(strings.Join(args, " "), "-listen") {
		args = append([]string{"-listen", "tcp://127.0.0.1:0"}, args...)
	}
	p := testproc.Start(t, demoserver.Path(t), args, "addr")
	return &server{Process: p, addr: p.Value("addr")}
}

// wireRequest is a request as a scripted server reads it.
type wireRequest struct {
	JSONRPC *string         `json:"jsonrpc"` // nil: absent (JSON-RPC 1.0)
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// scripted is a TCP server on loopback whose answers a test writes: for
// each request read on a connection, answer returns the lines to write
// back, in order, and whether to hang up after them. Lines of the client
// that are no request (its answers to garbage) are ignored.
type scripted struct {
	ln     net.Listener
	answer func(r wireRequest) (lines []string, hangup bool)
	wg     sync.WaitGroup

	mu       sync.Mutex
	conns    []net.Conn
	requests map[string]int // method → requests read
}

func newScripted(t *testing.T, answer func(r wireRequest) ([]string, bool)) *scripted {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &scripted{ln: ln, answer: answer, requests: map[string]int{}}
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(s.close)
	return s
}

func (s *scripted) addr() string { return "tcp://" + s.ln.Addr().String() }

func (s *scripted) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns = append(s.conns, nc)
		s.mu.Unlock()
		s.wg.Add(1)
		go s.serve(nc)
	}
}

func (s *scripted) serve(nc net.Conn) {
	defer s.wg.Done()
	defer nc.Close()
	sc := bufio.NewScanner(nc)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r wireRequest
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.Method == "" {
			continue
		}
		s.mu.Lock()
		s.requests[r.Method]++
		s.mu.Unlock()
		lines, hangup := s.answer(r)
		for _, l := range lines {
			if _, err := nc.Write([]byte(l + "\n")); err != nil {
				return
			}
		}
		if hangup {
			return
		}
	}
}

// count returns how many requests for method were read.
func (s *scripted) count(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[method]
}

func (s *scripted) close() {
	s.ln.Close()
	s.mu.Lock()
	for _, nc := range s.conns {
		nc.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// result is the line answering r with result.
func result(r wireRequest, result string) string {
	return `{"jsonrpc":"2.0","id":` + string(r.ID) + `,"result":` + result + `}`
}

// errorLine is the line answering r with an error.
func errorLine(r wireRequest, code int, data string) string {
	l := `{"jsonrpc":"2.0","id":` + string(r.ID) + `,"error":{"code":` + fmt.Sprint(code) + `,"message":"scripted"`
	if data != "" {
		l += `,"data":` + data
	}
	return l + `}}`
}

// within fails the test unless d ≤ limit.
func within(t *testing.T, what string, d, limit time.Duration) {
	t.Helper()
	if d > limit {
		t.Errorf("%s took %v, want ≤ %v", what, d, limit)
	}
}
